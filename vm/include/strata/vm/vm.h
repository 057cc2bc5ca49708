/* vm.h - the whole public VM API. */
#ifndef STRATA_VM_VM_H_
#define STRATA_VM_VM_H_

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/vm/buffer.h"
#include "strata/vm/context.h"
#include "strata/vm/list.h"
#include "strata/vm/module.h"
#include "strata/vm/ref.h"
#include "strata/vm/value.h"

#endif /* STRATA_VM_VM_H_ */
