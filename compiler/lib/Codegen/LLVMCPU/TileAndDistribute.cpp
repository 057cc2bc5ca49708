//===- TileAndDistribute.cpp - tensor-level workgroup distribution --------===//
//
// Splits each export's work into workgroups. The root op (the linalg op that
// produces the function's result) has its outermost one or two parallel loops
// tiled into an scf.forall; its producers (fills, elementwise ops, matmuls...)
// are fused into the forall so each iteration computes only the slices it
// needs. Every forall iteration later becomes one workgroup
// (bindWorkgroupIds). Reduction loops are never tiled, so a reduction to a
// 0-d result runs as one workgroup. An f32 linalg.softmax over its innermost
// dimension is kept whole (for llvm-cpu) and is a root of its own, cut into
// bands of whole rows. A function that only concatenates its arguments
// (tensor.concat, no linalg root) is cut into bands of its leading
// dimensions by hand (distributeConcat).
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "Strata/Dialect/Flow/IR/GlobalPool.h"
#include "Strata/Dialect/Flow/IR/PackedWeightLayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "PassPipelines.h"

#include <limits>

namespace mlir::strata::llvmcpu {
namespace {

// Work a workgroup should get: loop iterations times the element size of the
// result. Workgroups are cheap (one indirect call each), so a few KB of work
// amortize the call while leaving enough workgroups to spread over threads.
constexpr int64_t kTargetWorkgroupBytes = 16 * 1024;
// Beyond this many workgroups, tiles only get smaller: enough to keep any
// worker pool busy while each call still does a useful amount of work.
constexpr int64_t kMaxWorkgroups = 1024;
// The ABI's limit on each grid dimension.
constexpr int64_t kMaxWorkgroupsPerDim = 65535;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The tile size for a loop of `range` iterations split into about `wanted`
// tiles: a divisor of range close above range / wanted when one exists (full
// tiles only, static shapes stay static), else the plain quotient.
int64_t chooseTileSize(int64_t range, int64_t wanted) {
  wanted = std::max<int64_t>(1, std::min(wanted, range));
  int64_t ideal = ceilDiv(range, wanted);
  ideal = std::max(ideal, ceilDiv(range, kMaxWorkgroupsPerDim));
  for (int64_t size = ideal; size <= 2 * ideal && size <= range; ++size) {
    if (range % size == 0) {
      return size;
    }
  }
  return ideal;
}

// The op a function's workgroups are cut from, and the results of its
// producers that the function returns too. `op` is a linalg op, or a
// linalg.softmax kept whole (isRowSoftmax), whose loops are its
// dimensions: all parallel but the one it normalizes over.
struct Root {
  Operation *op = nullptr;
  SmallVector<OpResult> returnedProducerResults;

  linalg::LinalgOp linalgOp() const { return dyn_cast<linalg::LinalgOp>(op); }
  SmallVector<int64_t> staticLoopRanges() const {
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      return SmallVector<int64_t>(softmax.getInputOperandType().getShape());
    }
    return linalgOp().getStaticLoopRanges();
  }
  SmallVector<utils::IteratorType> iteratorTypes() const {
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      SmallVector<utils::IteratorType> types(softmax.getInputOperandRank(),
                                             utils::IteratorType::parallel);
      types[softmax.getDimension()] = utils::IteratorType::reduction;
      return types;
    }
    return linalgOp().getIteratorTypesArray();
  }
};

// An f32 linalg.softmax on tensors over its innermost dimension: with
// keepSoftmaxRows it is not decomposed but cut into bands of whole rows,
// which lowerSoftmaxRows (SoftmaxRows.cpp) computes row by row.
bool isRowSoftmax(Operation *op) {
  auto softmax = dyn_cast<linalg::SoftmaxOp>(op);
  if (!softmax || softmax->getNumResults() != 1) {
    return false;
  }
  auto type = dyn_cast<RankedTensorType>(softmax.getInput().getType());
  return type && isa<RankedTensorType>(softmax.getOutput().getType()) &&
         type.getElementType().isF32() && type.getRank() > 0 &&
         softmax.getDimension() == static_cast<uint64_t>(type.getRank() - 1);
}

// The root is the linalg op producing the function's last result. Every
// other result must be either the root's, or one of the root's direct
// producers' that the root reads exactly as it writes its first result
// (same type and indexing map): a workgroup's slice of it is then that
// workgroup's own. Otherwise the function has no root (one workgroup).
std::optional<Root> findRoot(func::FuncOp func) {
  auto returnOp = dyn_cast<func::ReturnOp>(func.getBody().front().back());
  if (!returnOp || returnOp.getNumOperands() == 0) {
    return std::nullopt;
  }
  auto isTileable = [](linalg::LinalgOp op) {
    return op && op.hasPureTensorSemantics() &&
           isa<TilingInterface>(op.getOperation());
  };
  Root root;
  Operation *last = returnOp.getOperands().back().getDefiningOp();
  if (last && isRowSoftmax(last)) {
    // Cut alone: every result must be the softmax's.
    root.op = last;
    if (!llvm::all_of(returnOp.getOperands(), [&](Value returned) {
          return returned.getDefiningOp() == last;
        })) {
      return std::nullopt;
    }
    return root;
  }
  auto rootOp = dyn_cast_or_null<linalg::LinalgOp>(last);
  if (!isTileable(rootOp) || rootOp.getNumDpsInits() == 0) {
    return std::nullopt;
  }
  root.op = rootOp;
  AffineMap outputMap =
      rootOp.getMatchingIndexingMap(rootOp.getDpsInitOperand(0));
  for (Value returned : returnOp.getOperands()) {
    if (returned.getDefiningOp() == root.op) {
      continue;
    }
    auto result = dyn_cast<OpResult>(returned);
    if (!result || !isTileable(dyn_cast<linalg::LinalgOp>(result.getOwner())) ||
        returned.getType() != root.op->getResult(0).getType()) {
      return std::nullopt;
    }
    // Read only by the root, and only as it writes (any other reader could
    // fuse a different slice of it and yield overlapping tiles).
    bool readAsWritten = false;
    for (OpOperand &use : returned.getUses()) {
      if (isa<func::ReturnOp>(use.getOwner())) {
        continue;
      }
      if (use.getOwner() != root.op || rootOp.isDpsInit(&use) ||
          rootOp.getMatchingIndexingMap(&use) != outputMap) {
        return std::nullopt;
      }
      readAsWritten = true;
    }
    if (!readAsWritten) {
      return std::nullopt;
    }
    root.returnedProducerResults.push_back(result);
  }
  return root;
}

// What an unbounded dynamic loop other than the one tiled counts for in a
// dynamic tile's work (chooseDynamicTileSizes): a sequence of the length
// the models suite's transformer runs. Counting such loops as 1 made the
// rows of a sequence's softmax (4 x S x S) one tile of 1024 rows, so one
// worker took all of it (2 workers: 1.4x the static module's 16 tiles).
constexpr int64_t kNominalDynamicRange = 128;

// The widest element, in bytes (at least 1), of values of these types:
// what a workgroup's work is counted in.
int64_t widestElementBytes(TypeRange types) {
  int64_t bytes = 1;
  for (Type type : types) {
    bytes = std::max<int64_t>(
        bytes, getElementTypeOrSelf(type).getIntOrFloatBitWidth() / 8);
  }
  return bytes;
}

// Tile sizes for a root with dynamic loop ranges: its first dynamic parallel
// loop (else its first parallel loop) is cut into tiles of a static size, about
// kTargetWorkgroupBytes of work each when that loop is the dynamic one
// (counting the static ranges, and the other dynamic ones as
// kNominalDynamicRange). The tiles bound the size of every
// temporary, which must be static to be placed (LowerToLLVM), and the
// workgroups take them in turn (BindWorkgroupIds), since how many there are is
// known only at run time.
SmallVector<int64_t> chooseDynamicTileSizes(const Root &root) {
  SmallVector<int64_t> ranges = root.staticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.iteratorTypes();
  auto first = llvm::find(iterators, utils::IteratorType::parallel);
  if (first == iterators.end()) {
    return {};
  }
  unsigned dim = std::distance(iterators.begin(), first);
  // The first dynamic parallel loop, when there is one: a static loop
  // before it (a unit batch, a head count) would leave it whole, and with
  // it every temporary unbounded.
  for (auto [d, iterator] : llvm::enumerate(iterators)) {
    if (iterator == utils::IteratorType::parallel &&
        ShapedType::isDynamic(ranges[d])) {
      dim = d;
      break;
    }
  }
  int64_t staticBytes = widestElementBytes(root.op->getResultTypes());
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range)) {
      staticBytes *= std::max<int64_t>(range, 1);
    } else if (d != dim) {
      staticBytes *= kNominalDynamicRange;
    }
  }
  int64_t size;
  if (ShapedType::isDynamic(ranges[dim])) {
    size = std::clamp<int64_t>(kTargetWorkgroupBytes / staticBytes, 1, 1024);
  } else {
    size = std::max<int64_t>(1, ceilDiv(ranges[dim], kMaxWorkgroups));
  }
  SmallVector<int64_t> sizes(ranges.size(), 0);
  sizes[dim] = size;
  return sizes;
}

// Workgroup tiles of a matmul aim at this many rows and columns: packing
// costs (1/rows + 1/columns) of the multiply-adds, and a 256 x 256 tile's
// packed operands sit in L2.
constexpr int64_t kMatmulTileEdge = 256;
// At least this many workgroups when the tiles allow: a few per worker,
// so one that starts late (a wake-up) still gets its share.
constexpr int64_t kMatmulWorkgroups = 8;

// Whether `op` is static, all f32, and has at least kMinMatmulTileWork
// multiply-adds per instance (its loops after the first `batchLoops`): then
// it gets matmul tiles, which become microkernel calls on targets that have
// one (MatmulUkernel.cpp).
// An 8-bit integer linalg.matmul accumulating in i32 (the quantized
// layers' contraction) counts as well: it takes the int8 microkernel.
bool isLargeF32(linalg::LinalgOp op, unsigned batchLoops = 0) {
  if (!op) {
    return false;
  }
  bool allF32 = llvm::all_of(op->getOperandTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isF32();
  });
  bool int8Matmul =
      isa<linalg::MatmulOp>(op) && op.getNumDpsInputs() == 2 &&
      llvm::all_of(op.getDpsInputs(),
                   [](Value v) {
                     return getElementTypeOrSelf(v.getType()).isInteger(8);
                   }) &&
      getElementTypeOrSelf(op.getDpsInits()[0].getType()).isInteger(32);
  if (!allF32 && !int8Matmul) {
    return false;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    return false;
  }
  int64_t work = 1;
  for (int64_t range : ArrayRef<int64_t>(ranges).drop_front(batchLoops)) {
    work *= range;
  }
  return work >= kMinMatmulTileWork;
}

// The OpT the root's workgroups are cut along: the root itself, or the
// producer of an input that an all-parallel elementwise root reads in its
// own layout (a bias, an activation, a residual add), whose loops are then
// the root's.
template <typename OpT> OpT findDistributed(linalg::LinalgOp root) {
  if (auto op = dyn_cast<OpT>(root.getOperation())) {
    return op;
  }
  unsigned rank = root.getNumLoops();
  if (root.getNumParallelLoops() != rank || root.getNumDpsInits() != 1 ||
      !root.getMatchingIndexingMap(root.getDpsInitOperand(0)).isIdentity()) {
    return {};
  }
  for (OpOperand *input : root.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<OpT>();
    // Same shape; the element types may differ (an int8 requantization
    // of an i32 product).
    if (producer && root.getMatchingIndexingMap(input).isIdentity() &&
        cast<ShapedType>(input->get().getType()).getShape() ==
            cast<ShapedType>(root->getResult(0).getType()).getShape()) {
      return producer;
    }
  }
  return {};
}

// Rows of a workgroup's tile of a matmul whose row count is dynamic (a
// batch or a sequence folded into M): the last tile is partial, its size
// bounded by this, so each workgroup calls the microkernel with static
// scratch. 64 rows keep packing's share small (1/64 of the multiply-adds)
// and leave several tiles at the row counts of a prompt.
constexpr int64_t kDynamicMatmulRows = 64;
// Rows of those tiles when the columns alone give kMinColumnTiles
// workgroups or more: every row of a prompt up to this many then passes
// each weight panel once, where 64-row tiles read a large weight once per
// 64 rows (GPT-2's 768 x 50257 output projection at 128 rows: 1.44x
// OpenBLAS with 128-row tiles, 1.72x with 64, the static module 1.50x;
// Intel Xeon, AVX-512, 2026-12-03).
constexpr int64_t kDynamicMatmulTileRows = 128;
constexpr int64_t kMinColumnTiles = 4;

// Whether `op` is all f32 with a dynamic first loop, static other loops,
// and at least kMinMatmulTileWork multiply-adds per `firstLoopTile`
// iterations of its first loop.
bool isDynamicFirstLoopF32(linalg::LinalgOp op, int64_t firstLoopTile) {
  if (!op || !llvm::all_of(op->getOperandTypes(), [](Type type) {
        return getElementTypeOrSelf(type).isF32();
      })) {
    return false;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!ShapedType::isDynamic(ranges[0]) ||
      llvm::any_of(ArrayRef<int64_t>(ranges).drop_front(),
                   ShapedType::isDynamic)) {
    return false;
  }
  int64_t work = firstLoopTile;
  for (int64_t range : ArrayRef<int64_t>(ranges).drop_front()) {
    work *= range;
  }
  return work >= kMinMatmulTileWork;
}

// A matmul with dynamic rows worth tiles of kDynamicMatmulRows rows.
bool isDynamicRowsF32(linalg::LinalgOp op) {
  return isDynamicFirstLoopF32(op, kDynamicMatmulRows);
}

// The large f32 linalg.matmul the root's workgroups are cut along
// (findDistributed); an epilogue's other inputs are 2-d tensors or
// broadcasts of rows (a bias), read without permutation.
linalg::MatmulOp findDistributedMatmul(linalg::LinalgOp root) {
  auto matmul = findDistributed<linalg::MatmulOp>(root);
  if (!matmul || matmul.hasUserDefinedMaps() ||
      !(isLargeF32(matmul) || isDynamicRowsF32(matmul))) {
    return {};
  }
  if (matmul.getOperation() != root.getOperation() &&
      (root.getNumLoops() != 2 ||
       !llvm::all_of(root.getIndexingMapsArray(), [](AffineMap map) {
         return map.isIdentity() ||
                (map.isProjectedPermutation() && map.getNumResults() == 1 &&
                 map.getDimPosition(0) == 1);
       }))) {
    return {};
  }
  return matmul;
}

// Tiles of about kMatmulTileEdge rows and columns, smaller ones when that
// leaves fewer than kMatmulWorkgroups workgroups to spread.
// Column tiles of the microkernels in whole panels (32 columns: the AVX-512
// panel, two AVX2 ones): a partial panel costs a full one, and a weight
// packed at compile time is read in place only from a panel's start.
constexpr int64_t kPanelColumns = 32;

int64_t wholePanels(int64_t tile, int64_t range) {
  return tile < range
             ? std::min<int64_t>(range, llvm::alignTo(tile, kPanelColumns))
             : tile;
}

SmallVector<int64_t> chooseMatmulTileSizes(linalg::MatmulOp matmul) {
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  int64_t m = ranges[0], n = ranges[1], k = ranges[2];
  (void)k;
  int64_t wanted = kMatmulWorkgroups;
  int64_t tileN = chooseTileSize(n, ceilDiv(n, kMatmulTileEdge));
  int64_t countN = ceilDiv(n, tileN);
  // Too few full-size tiles: narrower columns first (each workgroup then
  // packs less of B), rows below.
  if (countN * ceilDiv(m, kMatmulTileEdge) < wanted && n >= kMatmulTileEdge) {
    tileN = chooseTileSize(n, ceilDiv(n, kMatmulTileEdge / 2));
  }
  tileN = wholePanels(tileN, n);
  countN = ceilDiv(n, tileN);
  int64_t tileM = chooseTileSize(
      m, std::max(ceilDiv(m, kMatmulTileEdge), ceilDiv(wanted, countN)));
  // Thin row tiles would repack all of B for few rows.
  tileM = std::max(tileM, std::min<int64_t>(m, 16));
  if (tileM >= m && tileN >= n) {
    return {};
  }
  return {tileM < m ? tileM : 0, tileN < n ? tileN : 0};
}

// A weight packed at compile time (--strata-pack-weights): the reshape of a
// transpose that carries the packed-weight marker (PackedWeightLayout.h),
// which the microkernel rewrite reads in place (PackedWeights.cpp). It
// stays as written: neither generalized nor folded into its consumer.
bool isPackedWeightView(Operation *op) {
  auto collapse = dyn_cast_if_present<tensor::CollapseShapeOp>(op);
  return collapse &&
         flow::PackedWeightLayout::get(
             collapse.getSrc().getDefiningOp<linalg::TransposeOp>());
}

// At least this many workgroups for a convolution when the tiles allow:
// twice a matmul's, as a workgroup's fixed cost is small (its filter is
// packed at compile time; packing the input's windows costs per pixel)
// and more of them even out the last round when their count does not
// divide among the workers (7 workgroups on 2 workers leave one idle an
// eighth of the time; 14 do not).
constexpr int64_t kConvWorkgroups = 16;

// Workgroups per image (at least) of a convolution whose batch is known
// only at run time. Its images are cut like a batch of one would be, but
// coarser: a batch of one still spreads over a few workers, while a larger
// batch (whose images alone spread) pays little for the extra tiles.
// resnet18 compiled once with a dynamic batch (Intel Xeon, AVX-512,
// 2026-12-03): one workgroup per image left batch 1 on one worker (1.73x
// the static module at 2 workers); 16 per image, as the static batch 1,
// cost 20% at one worker and 11-13% at batch 8; these tiles cost 1-3% at
// one worker (batch 1 and 8).
constexpr int64_t kDynamicConvWorkgroupsPerImage = 4;

// The narrowest column tile of a convolution whose filter keeps its rows
// whole (chooseConvTileSizes): two microkernel panels.
constexpr int64_t kMinConvColumnTile = 64;

// A convolution of a dynamic batch (its first loop) worth the microkernel
// per image.
bool isDynamicBatchF32(linalg::Conv2DNhwcHwcfOp conv) {
  return conv && isDynamicFirstLoopF32(conv, 1);
}

// Convolution tiles for the microkernel, which takes one image and whole
// rows of output pixels: images one per workgroup, output rows and
// channels cut like a matmul's rows (pixels) and columns, so that the
// images' tiles make about `wanted` workgroups per image. A filter larger
// than `streamedFilterBytes` (the tuning table's streamed_filter_mib)
// keeps the rows whole.
SmallVector<int64_t> chooseConvTileSizes(linalg::Conv2DNhwcHwcfOp conv,
                                         int64_t wanted,
                                         int64_t streamedFilterBytes) {
  SmallVector<int64_t> ranges = conv.getStaticLoopRanges();
  int64_t images = ranges[0], height = ranges[1], width = ranges[2],
          channels = ranges[3];
  int64_t tileN = chooseTileSize(channels, ceilDiv(channels, kMatmulTileEdge));
  int64_t countN = ceilDiv(channels, tileN);
  if (countN * ceilDiv(height * width, kMatmulTileEdge) < wanted &&
      channels >= kMatmulTileEdge) {
    tileN = chooseTileSize(channels, ceilDiv(channels, kMatmulTileEdge / 2));
  }
  tileN = wholePanels(tileN, channels);
  countN = ceilDiv(channels, tileN);
  int64_t rowsWanted = std::max(ceilDiv(height * width, kMatmulTileEdge),
                                ceilDiv(wanted, countN));
  // A filter larger than the L2 cache comes from memory for every
  // workgroup of its columns: cut into tiles of rows, it would be read
  // once per row tile (resnet18's 3x3 512 -> 512 at 7x7, 9.4 MB, four
  // times a call). Such an image keeps its rows whole and its workgroups
  // come from narrower column tiles instead (each packs the image's
  // windows again, a smaller cost than the filter's bytes).
  int64_t filterBytes = ranges[4] * ranges[5] * ranges[6] * channels *
                        static_cast<int64_t>(sizeof(float));
  if (filterBytes > streamedFilterBytes) {
    tileN = wholePanels(
        std::max(chooseTileSize(channels, wanted), kMinConvColumnTile),
        channels);
    countN = ceilDiv(channels, tileN);
    rowsWanted = ceilDiv(height * width, kMatmulTileEdge);
  }
  int64_t tileH = chooseTileSize(height, rowsWanted);
  // Whole tiles keep every size static: a divisor a little below will do
  // when there is none above (27 rows by 3 rather than 4).
  for (int64_t size = tileH; height % tileH && size * 2 > tileH; --size) {
    if (height % size == 0) {
      tileH = size;
    }
  }
  // Thin tiles would repack all of the filter for few pixels; a filter
  // packed at compile time is read in place, so its tiles may be thinner.
  Value filter = conv.getInputs()[1];
  if (auto slice = filter.getDefiningOp<tensor::ExtractSliceOp>()) {
    filter = slice.getSource();
  }
  int64_t minPixels = isPackedWeightView(filter.getDefiningOp()) ? 8 : 16;
  tileH = std::max(tileH, std::min(height, ceilDiv(minPixels, width)));
  if (images == 1 && tileH >= height && tileN >= channels) {
    return {};
  }
  return {images != 1 ? 1 : 0, tileH < height ? tileH : 0, 0,
          tileN < channels ? tileN : 0};
}

// A convolution whose filter is read back from its Winograd transform
// (--strata-pack-weights winograd: the generic carrying the marker,
// PackedWeightLayout.h), which the microkernel runs by Winograd's
// algorithm on the transform (ConvUkernel.cpp).
bool hasWinogradFilter(linalg::Conv2DNhwcHwcfOp conv) {
  Value filter = conv.getInputs()[1];
  if (auto slice = filter.getDefiningOp<tensor::ExtractSliceOp>()) {
    filter = slice.getSource();
  }
  return flow::WinogradFilter::get(filter.getDefiningOp()).has_value();
}

// A Winograd filter transform larger than this comes from beyond L2 for
// every workgroup that reads it: such a convolution's workgroups take the
// most rows that waste no more than the fewest do, each transform panel
// then serving more tiles (bench/ukernel/winograd.sh, Intel Xeon model
// 207: 14x14 x 256 -> 256, a 9 MiB transform, in calls of 14 rows 0.74x of
// the direct kernel, of 7 rows 0.83x).
constexpr int64_t kWinogradCachedTransformBytes = 1 << 20;

// Workgroups a Winograd convolution is cut into at least (when its rows
// allow): fewer than a direct convolution's kConvWorkgroups, as each column
// tile transforms its input tiles again and multiplies fewer columns per
// transform (14x14 x 256 -> 256 in calls of 128 filters: 0.63x of the
// direct kernel; of 32: 0.74x).
constexpr int64_t kWinogradWorkgroups = 4;

// Rows of a band of a Winograd convolution's output: the divisors of
// `height` (static tiles) from 4 whose 4x4 output tiles waste the least (a
// partial tile costs a whole one), the fewest such rows or, with `most`,
// the most.
int64_t winogradBandRows(int64_t height, bool most) {
  constexpr int64_t kTile = 4;
  int64_t rows = height;
  double leastWaste = std::numeric_limits<double>::infinity();
  for (int64_t d = std::min(kTile, height); d <= height; ++d) {
    if (height % d != 0) {
      continue;
    }
    double waste =
        static_cast<double>(ceilDiv(d, kTile) * kTile) / static_cast<double>(d);
    if (waste < leastWaste || (most && waste == leastWaste)) {
      rows = d;
      leastWaste = waste;
    }
  }
  return rows;
}

// Tiles of a convolution with a Winograd filter (hasWinogradFilter): rows
// a divisor of the height (static tiles) from 4 whose 4x4 output tiles
// waste the least (a partial tile costs a whole one: 28x28 x 128 -> 128
// in calls of 14 rows, 16 computed, ran at 0.54x of the direct kernel,
// of 4 or 28 at 0.44x), the fewest such rows, or the most when the
// transform is larger than kWinogradCachedTransformBytes (56: 4; 28: 4,
// or 28; 14: 7, or 14; 13: 13); then, when the row tiles of all images
// are fewer than `wanted`, columns in whole panels enough for `wanted`.
SmallVector<int64_t> chooseWinogradTileSizes(linalg::Conv2DNhwcHwcfOp conv,
                                             int64_t images, int64_t wanted) {
  SmallVector<int64_t> ranges = conv.getStaticLoopRanges();
  int64_t height = ranges[1], channels = ranges[3];
  int64_t depth = ranges[6];
  bool largeTransform =
      36 * depth * channels * static_cast<int64_t>(sizeof(float)) >
      kWinogradCachedTransformBytes;
  int64_t rows = winogradBandRows(height, /*most=*/largeTransform);
  int64_t rowTiles = images * (height / rows);
  int64_t tileN = channels;
  if (rowTiles < wanted) {
    tileN = wholePanels(chooseTileSize(channels, ceilDiv(wanted, rowTiles)),
                        channels);
  }
  if (images == 1 && rows >= height && tileN >= channels) {
    return {};
  }
  return {images != 1 ? 1 : 0, rows < height ? rows : 0, 0,
          tileN < channels ? tileN : 0};
}

// The rows a band computes into a temporary for the op that reads them
// (the convolution rows of a max pool's band, the depthwise rows of a 1x1
// convolution's) stay in the cache when they take at most this many bytes
// (half of the smallest L2 the kernels run on, beside the microkernel's
// packed windows): bands grow towards this while enough workgroups
// (kConvWorkgroups) remain, a max pool's while they cost less
// (choosePoolBandRows).
constexpr int64_t kBandTemporaryBytes = 512 * 1024;

// Tile sizes for `loops` loops whose first two are images and output rows:
// images one per workgroup, and bands of rows from the smallest divisor of
// `height` (static tiles) of at least `minRows`, then larger while
// kConvWorkgroups workgroups remain and the band's `bandBytes` (of a
// temporary computed in the workgroup) fit in kBandTemporaryBytes. Empty when
// that is one workgroup.
SmallVector<int64_t>
chooseBandRowTileSizes(size_t loops, int64_t images, int64_t height,
                       int64_t minRows,
                       llvm::function_ref<int64_t(int64_t)> bandBytes) {
  SmallVector<int64_t> divisors;
  for (int64_t d = 1; d <= height; ++d) {
    if (height % d == 0) {
      divisors.push_back(d);
    }
  }
  auto *it =
      llvm::find_if(divisors, [&](int64_t rows) { return rows >= minRows; });
  int64_t rows = it == divisors.end() ? height : *it;
  for (; it != divisors.end() && std::next(it) != divisors.end(); ++it) {
    int64_t next = *std::next(it);
    if (images * (height / next) < kConvWorkgroups ||
        bandBytes(next) > kBandTemporaryBytes) {
      break;
    }
    rows = next;
  }
  if (images == 1 && rows >= height) {
    return {};
  }
  SmallVector<int64_t> sizes(loops, 0);
  sizes[0] = images > 1 ? 1 : 0;
  sizes[1] = rows < height ? rows : 0;
  return sizes;
}

// The OpT computed in the function that `input` is the result of,
// directly or through its elementwise epilogue (of the same type); null
// otherwise.
template <typename OpT> OpT findComputedInput(Value input) {
  if (auto epilogue = input.getDefiningOp<linalg::GenericOp>()) {
    auto op = findDistributed<OpT>(epilogue);
    return op && op->getResult(0).getType() == input.getType() ? op : OpT();
  }
  return input.getDefiningOp<OpT>();
}

// The OpT computed in the function that a window op's input is, through
// its padding if any (findComputedInput); null otherwise.
template <typename OpT> OpT findComputedWindowInput(Value input) {
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    input = pad.getSource();
  }
  return findComputedInput<OpT>(input);
}

// The static f32 NHWC convolution computed in the function whose result a
// max pool reads, directly or through its elementwise epilogue, and
// through its padding (the flow phase's --fuse-into-pool); null otherwise.
linalg::Conv2DNhwcHwcfOp findPooledConvolution(linalg::PoolingNhwcMaxOp pool) {
  return findComputedWindowInput<linalg::Conv2DNhwcHwcfOp>(pool.getInputs()[0]);
}

// The static f32 NHWC convolution computed in the function whose whole
// images a global pool reduces (flow::isGlobalPoolOf, the flow phase's
// --fuse-into-pool): the root is that pool, or an all-parallel op over
// its result in its layout (flow::isGlobalPoolEpilogue: the average's
// division); null otherwise.
linalg::Conv2DNhwcHwcfOp findGlobalPooledConvolution(linalg::LinalgOp root) {
  SmallVector<linalg::LinalgOp, 2> pools = {root};
  for (Value input : root.getDpsInputs()) {
    auto producer = input.getDefiningOp<linalg::LinalgOp>();
    if (producer && producer->getNumResults() == 1 &&
        flow::isGlobalPoolEpilogue(root, producer->getResult(0))) {
      pools.push_back(producer);
    }
  }
  for (linalg::LinalgOp pool : pools) {
    for (OpOperand *input : pool.getDpsInputOperands()) {
      auto conv = findComputedInput<linalg::Conv2DNhwcHwcfOp>(input->get());
      if (conv && isLargeF32(conv) && flow::isGlobalPoolOf(pool, *input)) {
        return conv;
      }
    }
  }
  return {};
}

// Workgroups of a global pool over a convolution computed in its function
// (findGlobalPooledConvolution): one image and a column tile of whole
// panels each (so that the packed filter is read in place) of about
// kMatmulTileEdge columns (squeezenet1_1's 1000: four), narrower while
// the images and tiles make fewer than kMatmulWorkgroups (one image: 8
// tiles of 128; in 4 of 256, two workers on unevenly loaded vCPUs took
// 0.58 and 0.83 ms, 1.45x apart, as neither could take over a tile); each
// computes its image's pixels for its columns into a temporary and
// reduces them. Cut along the root's loops that its result's images and
// channels come from.
SmallVector<int64_t> chooseGlobalPoolTileSizes(linalg::LinalgOp root,
                                               linalg::Conv2DNhwcHwcfOp conv) {
  int64_t channels = conv.getStaticLoopRanges()[3];
  // Images x channels (flow::isGlobalPoolOf), or the same through an
  // all-parallel op after the pool (flow::isGlobalPoolEpilogue: identity
  // maps).
  AffineMap resultMap = root.getMatchingIndexingMap(root.getDpsInitOperand(0));
  assert(resultMap.getNumResults() == 2 && resultMap.isProjectedPermutation() &&
         "findGlobalPooledConvolution's root writes images x channels");
  int64_t images = conv.getStaticLoopRanges()[0];
  int64_t wanted = ceilDiv(channels, kMatmulTileEdge);
  if (!ShapedType::isDynamic(images)) {
    wanted = std::max(wanted, ceilDiv(kMatmulWorkgroups, images));
  }
  int64_t tileC = wholePanels(chooseTileSize(channels, wanted), channels);
  SmallVector<int64_t> sizes(root.getNumLoops(), 0);
  sizes[resultMap.getDimPosition(0)] = 1;
  sizes[resultMap.getDimPosition(1)] = tileC < channels ? tileC : 0;
  return sizes;
}

// The worker counts a max pool's bands are balanced for
// (choosePoolBandRows).
constexpr int64_t kPoolBandWorkers[] = {1, 2, 4};

// Rows of a max pool's bands, each band computing rows * stride + shared
// rows of the convolution it reads (`shared` recomputed by the next band):
// among the divisors of `height` (static tiles) whose band temporary
// (`bandBytes`) fits in kBandTemporaryBytes, the one whose worst time over
// kPoolBandWorkers workers, against that of the convolution computed once
// and spread evenly, is least: rounds of bands (ceil(bands / workers))
// times each band's convolution rows. More bands balance more workers but
// recompute more: resnet18's stem at batch 1 (56 pool rows, 3x3 stride 2)
// takes 8 bands of 7 rows, 1.07x at 1, 2 and 4 workers, where 14 bands of
// 4 (at least kConvWorkgroups workgroups, as before) were 1.13-1.29x.
// Ties go to the more bands. 0 when none fits.
int64_t choosePoolBandRows(int64_t images, int64_t height, int64_t stride,
                           int64_t shared,
                           llvm::function_ref<int64_t(int64_t)> bandBytes) {
  int64_t best = 0;
  double bestCost = 0;
  for (int64_t rows = 1; rows <= height; ++rows) {
    if (height % rows || bandBytes(rows) > kBandTemporaryBytes) {
      continue;
    }
    int64_t bands = images * (height / rows);
    double cost = 0;
    for (int64_t workers : kPoolBandWorkers) {
      double once = static_cast<double>(images * height * stride) / workers;
      cost = std::max(cost, ceilDiv(bands, workers) *
                                static_cast<double>(rows * stride + shared) /
                                once);
    }
    if (!best || cost < bestCost) {
      best = rows;
      bestCost = cost;
    }
  }
  return best;
}

// Bands of output rows of a max pool whose input a convolution computes in
// the same function: each band's workgroup computes the convolution rows
// its windows read (tile and fuse), into a temporary the pool then reads
// from the cache, instead of the convolution writing its whole result to
// memory and the pool reading it back (squeezenet1_1's 1x111x111x64).
// Rows: choosePoolBandRows. Images one per workgroup.
SmallVector<int64_t> choosePoolBandTileSizes(linalg::PoolingNhwcMaxOp pool) {
  SmallVector<int64_t> ranges = pool.getStaticLoopRanges();
  auto input = dyn_cast<RankedTensorType>(pool.getInputs()[0].getType());
  // A dynamic batch (the flow phase fuses those too): cut as a batch of one
  // would be, an image per workgroup.
  bool dynamicBatch = ShapedType::isDynamic(ranges[0]);
  if (llvm::any_of(ArrayRef<int64_t>(ranges).drop_front(),
                   ShapedType::isDynamic) ||
      !input ||
      llvm::any_of(input.getShape().drop_front(), ShapedType::isDynamic)) {
    return {};
  }
  int64_t images = dynamicBatch ? 1 : ranges[0], height = ranges[1],
          window = ranges[4];
  int64_t stride = pool.getStrides().getValues<int64_t>()[0];
  int64_t dilation = pool.getDilations().getValues<int64_t>()[0];
  int64_t shared = std::max<int64_t>((window - 1) * dilation + 1 - stride, 0);
  int64_t rowBytes = input.getDimSize(2) * input.getDimSize(3) *
                     input.getElementTypeBitWidth() / 8;
  auto bandBytes = [&](int64_t rows) {
    return (rows * stride + shared) * rowBytes;
  };
  int64_t rows = choosePoolBandRows(images, height, stride, shared, bandBytes);
  if (!rows || (images == 1 && !dynamicBatch && rows == height)) {
    return {};
  }
  SmallVector<int64_t> sizes(ranges.size(), 0);
  sizes[0] = images > 1 || dynamicBatch ? 1 : 0;
  sizes[1] = rows < height ? rows : 0;
  return sizes;
}

// A band of a depthwise convolution fused with the convolutions around it
// (chooseDepthwiseChainTileSizes) has at least this many pixels (a whole
// image when smaller), its projection's microkernel rows: mobilenet_v2's
// 7x7x960 -> 320 in bands of one row (7 pixels) took 1.24x the two
// dispatches it replaced.
constexpr int64_t kMinProjectionBandPixels = 64;

// The 1x1 convolution of stride 1 whose input a depthwise convolution
// computes in the same function, directly or through its elementwise
// epilogue (the flow phase's --fuse-into-projection); null otherwise.
linalg::DepthwiseConv2DNhwcHwcOp
findProjectedDepthwise(linalg::Conv2DNhwcHwcfOp conv) {
  return findComputedInput<linalg::DepthwiseConv2DNhwcHwcOp>(
      conv.getInputs()[0]);
}

// The convolution computed in the function whose result a depthwise
// convolution reads, directly or through its elementwise epilogue, and
// through its padding (the flow phase's --fuse-into-depthwise); null
// otherwise.
linalg::Conv2DNhwcHwcfOp
findExpandedConvolution(linalg::DepthwiseConv2DNhwcHwcOp dw) {
  return findComputedWindowInput<linalg::Conv2DNhwcHwcfOp>(dw.getInputs()[0]);
}

// A depthwise convolution's band recomputes the rows of a convolution
// computed before it that it shares with the next band (its windows
// overlap by the window less the stride): bands are at least tall enough
// that this is at most 1/kChainBandMaxRecompute of that convolution's work
// (a max pool's bands are chosen by their cost instead, choosePoolBandRows;
// the temporaries of a 1x1 expansion to many channels are wide).
constexpr int64_t kChainBandMaxRecompute = 4;

// Bands of output rows of a depthwise convolution, computed in a function
// whose root is the convolution or, through its epilogue, a 1x1 convolution
// (its projection) of `loops` loops: images one per workgroup and bands of
// at least kMinProjectionBandPixels pixels, every channel in one band (a
// column tile of a projection would compute the depthwise rows again).
// Each band computes the depthwise rows it needs into a temporary, and the
// rows of a convolution before it (isFusedIntoDepthwise) its windows read
// into another, so rows grow while kConvWorkgroups workgroups remain and
// the larger temporary fits in kBandTemporaryBytes; with a convolution
// before, bands also recompute at most 1/kChainBandMaxRecompute of it.
SmallVector<int64_t>
chooseDepthwiseChainTileSizes(linalg::DepthwiseConv2DNhwcHwcOp dw,
                              size_t loops) {
  SmallVector<int64_t> ranges = dw.getStaticLoopRanges();
  auto input = dyn_cast<RankedTensorType>(dw.getInputs()[0].getType());
  auto output = dyn_cast<RankedTensorType>(dw->getResult(0).getType());
  if (llvm::any_of(ranges, ShapedType::isDynamic) || !input ||
      !input.hasStaticShape() || !output || !output.hasStaticShape()) {
    return {};
  }
  int64_t images = ranges[0], height = ranges[1], width = ranges[2],
          window = ranges[4];
  int64_t stride = dw.getStrides().getValues<int64_t>()[0];
  int64_t dilation = dw.getDilations().getValues<int64_t>()[0];
  int64_t outRowBytes =
      width * output.getDimSize(3) * output.getElementTypeBitWidth() / 8;
  int64_t minRows = ceilDiv(kMinProjectionBandPixels, width);
  std::function<int64_t(int64_t)> bandBytes = [=](int64_t rows) {
    return rows * outRowBytes;
  };
  if (findExpandedConvolution(dw)) {
    int64_t shared = std::max<int64_t>((window - 1) * dilation + 1 - stride, 0);
    int64_t inRowBytes = input.getDimSize(2) * input.getDimSize(3) *
                         input.getElementTypeBitWidth() / 8;
    minRows =
        std::max(minRows, ceilDiv(shared * kChainBandMaxRecompute, stride));
    bandBytes = [=](int64_t rows) {
      return std::max((rows * stride + shared) * inRowBytes,
                      rows * outRowBytes);
    };
  }
  return chooseBandRowTileSizes(loops, images, height, minRows, bandBytes);
}

// Tile sizes (0: not tiled) for the root's loops; empty when the root should
// stay whole.
SmallVector<int64_t> chooseBandTileSizes(const Root &root);

SmallVector<int64_t> chooseTileSizes(const Root &rootInfo,
                                     int64_t streamedFilterBytes) {
  SmallVector<int64_t> ranges = rootInfo.staticLoopRanges();
  linalg::LinalgOp root = rootInfo.linalgOp();
  if (!root) {
    // A kept softmax: bands of whole rows, cut like any other op's
    // parallel loops.
    return llvm::any_of(ranges, ShapedType::isDynamic)
               ? chooseDynamicTileSizes(rootInfo)
               : chooseBandTileSizes(rootInfo);
  }
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    if (linalg::MatmulOp matmul = findDistributedMatmul(root)) {
      // Dynamic rows: tiles of kDynamicMatmulTileRows (kDynamicMatmulRows
      // when the columns give few tiles), and the columns a few
      // rows would take statically (narrower, for more workgroups; the
      // weight is read in place, so narrow tiles cost no packing).
      int64_t n = matmul.getStaticLoopRanges()[1];
      int64_t tileN = chooseTileSize(n, ceilDiv(n, n >= kMatmulTileEdge
                                                       ? kMatmulTileEdge / 2
                                                       : kMatmulTileEdge));
      tileN = wholePanels(tileN, n);
      // Few column tiles leave the rows to spread the work.
      int64_t tileM = ceilDiv(n, tileN) >= kMinColumnTiles
                          ? kDynamicMatmulTileRows
                          : kDynamicMatmulRows;
      SmallVector<int64_t> sizes = {tileM, tileN < n ? tileN : 0};
      sizes.resize(root.getNumLoops(), 0);
      return sizes;
    }
    // A batch_matmul with dynamic rows, columns or depth (attention over a
    // sequence): one batch per workgroup, its rows and columns cut into
    // bounded tiles the microkernel takes as a matmul.
    auto batch = findDistributed<linalg::BatchMatmulOp>(root);
    if (batch && !batch.hasUserDefinedMaps() &&
        llvm::all_of(batch->getOperandTypes(), [](Type type) {
          return getElementTypeOrSelf(type).isF32();
        })) {
      SmallVector<int64_t> r = batch.getStaticLoopRanges();
      // A dynamic depth (scores x values over a sequence) is cut again
      // inside each workgroup (tileDynamicDepths).
      if (!ShapedType::isDynamic(r[0]) &&
          (ShapedType::isDynamic(r[1]) || ShapedType::isDynamic(r[2]) ||
           ShapedType::isDynamic(r[3]))) {
        SmallVector<int64_t> sizes(root.getNumLoops(), 0);
        sizes[0] = 1;
        sizes[1] = ShapedType::isDynamic(r[1]) ? kDynamicMatmulRows : 0;
        sizes[2] = ShapedType::isDynamic(r[2]) ? kMatmulTileEdge / 2 : 0;
        return sizes;
      }
    }
    // A max pool over a convolution of a dynamic batch computed in its
    // function: bands of rows, an image per workgroup.
    if (auto pool = dyn_cast<linalg::PoolingNhwcMaxOp>(root.getOperation());
        pool && findPooledConvolution(pool)) {
      SmallVector<int64_t> sizes = choosePoolBandTileSizes(pool);
      if (!sizes.empty()) {
        return sizes;
      }
    }
    // A convolution of a dynamic batch: a few tiles per image.
    auto conv = findDistributed<linalg::Conv2DNhwcHwcfOp>(root);
    if (isDynamicBatchF32(conv)) {
      SmallVector<int64_t> sizes =
          hasWinogradFilter(conv)
              ? chooseWinogradTileSizes(conv, /*images=*/1,
                                        kDynamicConvWorkgroupsPerImage)
              : chooseConvTileSizes(conv, kDynamicConvWorkgroupsPerImage,
                                    streamedFilterBytes);
      if (sizes.empty() || sizes[0] == 0) {
        sizes.resize(std::max<size_t>(sizes.size(), 1), 0);
        sizes[0] = 1;
      }
      sizes.resize(root.getNumLoops(), 0);
      return sizes;
    }
    return chooseDynamicTileSizes(rootInfo);
  }
  if (linalg::MatmulOp matmul = findDistributedMatmul(root)) {
    SmallVector<int64_t> sizes = chooseMatmulTileSizes(matmul);
    if (!sizes.empty()) {
      sizes.resize(root.getNumLoops(), 0);
    }
    return sizes;
  }
  // A large f32 batch_matmul (or its elementwise epilogue): one batch per
  // workgroup, which the microkernel then takes as a matmul.
  auto batch = findDistributed<linalg::BatchMatmulOp>(root);
  if (batch && !batch.hasUserDefinedMaps() && ranges[0] > 1 &&
      isLargeF32(batch, /*batchLoops=*/1)) {
    SmallVector<int64_t> sizes(root.getNumLoops(), 0);
    sizes[0] = 1;
    return sizes;
  }
  if (auto pool = dyn_cast<linalg::PoolingNhwcMaxOp>(root.getOperation());
      pool && findPooledConvolution(pool)) {
    return choosePoolBandTileSizes(pool);
  }
  if (linalg::Conv2DNhwcHwcfOp conv = findGlobalPooledConvolution(root)) {
    return chooseGlobalPoolTileSizes(root, conv);
  }
  auto conv = findDistributed<linalg::Conv2DNhwcHwcfOp>(root);
  // A depthwise convolution fused with the convolutions around it:
  // bands of its rows.
  auto dw = conv ? findProjectedDepthwise(conv)
                 : findDistributed<linalg::DepthwiseConv2DNhwcHwcOp>(root);
  if (dw && (conv || findExpandedConvolution(dw))) {
    return chooseDepthwiseChainTileSizes(dw, root.getNumLoops());
  }
  if (conv && isLargeF32(conv) && hasWinogradFilter(conv)) {
    int64_t images = conv.getStaticLoopRanges()[0];
    SmallVector<int64_t> sizes = chooseWinogradTileSizes(
        conv, images, ceilDiv(kWinogradWorkgroups, images));
    if (!sizes.empty()) {
      sizes.resize(root.getNumLoops(), 0);
    }
    return sizes;
  }
  if (conv && isLargeF32(conv)) {
    SmallVector<int64_t> sizes = chooseConvTileSizes(
        conv, ceilDiv(kConvWorkgroups, conv.getStaticLoopRanges()[0]),
        streamedFilterBytes);
    if (!sizes.empty()) {
      sizes.resize(root.getNumLoops(), 0);
    }
    return sizes;
  }
  return chooseBandTileSizes(rootInfo);
}

// Tiles of the first one or two parallel loops of about
// kTargetWorkgroupBytes of work each (at most kMaxWorkgroups of them), for
// loops of these static ranges and iterator types whose results have
// elements of at most `elementBytes` bytes. Loops marked in `keepWhole`
// are passed over while others are left to cut. The loop along which the
// result is contiguous (`contiguous`) is cut into no less than a cache
// line: a split reduction's partial extremes of 256x2352x16 floats were cut
// into 4 of their 16 columns, each workgroup reading 16 bytes of every
// 64-byte line in 4-lane vectors (three times the time of the sum beside
// it, which the same cut slowed less).
constexpr int64_t kMinContiguousTileBytes = 64;

SmallVector<int64_t>
chooseBandTileSizes(ArrayRef<int64_t> ranges,
                    ArrayRef<utils::IteratorType> iterators,
                    int64_t elementBytes, ArrayRef<bool> keepWhole = {},
                    std::optional<unsigned> contiguous = std::nullopt) {
  SmallVector<unsigned> parallelDims;
  for (bool skip : {true, false}) {
    for (auto [dim, iterator] : llvm::enumerate(iterators)) {
      if (iterator == utils::IteratorType::parallel &&
          parallelDims.size() < 2 &&
          !(skip && dim < keepWhole.size() && keepWhole[dim])) {
        parallelDims.push_back(dim);
      }
    }
    if (!parallelDims.empty()) {
      break;
    }
  }
  if (parallelDims.empty()) {
    return {};
  }
  int64_t totalBytes = elementBytes;
  for (int64_t range : ranges) {
    totalBytes *= std::max<int64_t>(range, 1);
  }
  int64_t wanted =
      std::min(ceilDiv(totalBytes, kTargetWorkgroupBytes), kMaxWorkgroups);
  if (wanted <= 1) {
    return {};
  }
  SmallVector<int64_t> sizes(ranges.size(), 0);
  int64_t range0 = ranges[parallelDims[0]];
  int64_t size0 = chooseTileSize(range0, wanted);
  sizes[parallelDims[0]] = size0;
  int64_t count0 = ceilDiv(range0, size0);
  // Too few rows for the work: split the second parallel loop as well.
  if (count0 * 2 <= wanted && parallelDims.size() > 1) {
    int64_t range1 = ranges[parallelDims[1]];
    int64_t size1 = chooseTileSize(range1, ceilDiv(wanted, count0));
    if (parallelDims[1] == contiguous) {
      size1 = std::max(size1, ceilDiv(kMinContiguousTileBytes, elementBytes));
    }
    if (size1 < range1) {
      sizes[parallelDims[1]] = size1;
    }
  }
  if (count0 == 1 && (parallelDims.size() < 2 || !sizes[parallelDims[1]])) {
    return {};
  }
  return sizes;
}

SmallVector<int64_t> chooseBandTileSizes(const Root &rootInfo) {
  // A loop along which an input of two or more dimensions is contiguous
  // but the result is not (a transpose: NHWC back to NCHW at a graph's
  // output) stays whole: cut into bands of it, each workgroup would read
  // one element of every cache line of its input (a stem's 1x64x112x112
  // output with its bias and ReLU took 4.9 ms, 6 ns an element, tiled
  // along its channels).
  SmallVector<bool> keepWhole;
  std::optional<unsigned> resultInner;
  // (Several results written through one map, a split reduction's partial
  // minimums and maximums, count as one.)
  if (linalg::LinalgOp op = rootInfo.linalgOp();
      op && op.getNumDpsInits() >= 1 &&
      llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return op.getMatchingIndexingMap(&init) ==
               op.getMatchingIndexingMap(op.getDpsInitOperand(0));
      })) {
    auto innermost = [](AffineMap map) -> std::optional<unsigned> {
      if (map.getNumResults() < 2) {
        return std::nullopt;
      }
      if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back())) {
        return dim.getPosition();
      }
      return std::nullopt;
    };
    resultInner = innermost(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
    keepWhole.assign(op.getNumLoops(), false);
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::optional<unsigned> inner =
          innermost(op.getMatchingIndexingMap(input));
      if (inner && inner != resultInner) {
        keepWhole[*inner] = true;
      }
    }
  }
  return chooseBandTileSizes(rootInfo.staticLoopRanges(),
                             rootInfo.iteratorTypes(),
                             widestElementBytes(rootInfo.op->getResultTypes()),
                             keepWhole, resultInner);
}

// Bands of a concatenation whose operands are computed in its dispatch
// (distributeConcat): at least this many pixels each (a microkernel row
// panel of 14 on AVX-512), while at least kConcatMinBands bands remain.
// Bands of one output row of 27 pixels (squeezenet1_1's 27x27 fire
// modules) took 0.88-0.93x the time of the 28-pixel minimum's bands of
// three rows at batch 1 and 0.95-0.97x at batch 8, 1 and 2 workers (Intel
// Xeon, family 6 model 207, 2026-12-06, bench/models/ab.py); a 13x13
// image's rows of 13 pixels stay whole images at a batch (rows of one were
// 1.02-1.06x).
constexpr int64_t kConcatBandPixels = 14;
constexpr int64_t kConcatMinBands = 8;

// A band of a Winograd convolution with fewer 4x4 output tiles than this
// leaves the rows of the microkernel's products partly empty (its row
// panel: 14 on AVX-512): 13x13 48 -> 192 in bands of 8 rows (8 tiles) took
// 1.11x the time of whole images in halves of the filters, 27x27 32 -> 128
// in bands of 8 rows (14 tiles) 0.87x (bench/ukernel/winograd.sh, Intel
// Xeon model 207).
constexpr int64_t kWinogradBandMinTiles = 14;

// Rows of the bands of a concatenation's Winograd operand at a small batch
// (distributeConcat): whole 4x4 tiles, the image's last band what remains
// (so no band wastes more than whole images do), the most rows that still
// make `wanted` bands of the image, and at least kWinogradBandMinTiles
// tiles a band. 55x55 for 4 bands: 16 rows (16, 16, 16 and 7), which ran
// at 0.82x the time of halves of the filters; 27x27: 8 rows; 13x13: the
// whole image (bands of 4 rows would have 4 tiles).
int64_t concatWinogradBandRows(int64_t height, int64_t width, int64_t wanted) {
  constexpr int64_t kTile = 4;
  int64_t tileRows = ceilDiv(height, kTile),
          tileColumns = ceilDiv(width, kTile);
  int64_t bandTileRows = tileRows;
  while (bandTileRows > 1 && ceilDiv(tileRows, bandTileRows) < wanted) {
    --bandTileRows;
  }
  bandTileRows =
      std::max(bandTileRows, ceilDiv(kWinogradBandMinTiles, tileColumns));
  return std::min(height, bandTileRows * kTile);
}

// The parts a concatenation's dispatch cuts every operand's channels into
// when its Winograd operand's bands are too few (one to three images): each
// workgroup computes its part of every operand (the Winograd convolution
// transforms its input tiles again for each part, against its part of the
// filters). Halves, quarters and so on up to `wanted`, while every part is
// whole panels of at least two (kPanelColumns); halves also of one panel.
// Squeezenet1_1 at batch 1 (bench/ukernel/winograd.sh, Intel Xeon model
// 207, against the direct kernel in the one-row bands its concatenations
// took before): 13x13 48 -> 192 in halves 0.78x, in sixths 0.95x; 27x27
// 32 -> 128 in halves 0.41x, in quarters 0.47x; 55x55 16 -> 64 in halves
// 0.64x.
int64_t concatChannelParts(tensor::ConcatOp concat, int64_t wanted) {
  auto cuts = [&](int64_t parts, int64_t leastPanels) {
    return llvm::all_of(concat.getInputs(), [&](Value input) {
      int64_t channels =
          cast<RankedTensorType>(input.getType()).getDimSize(concat.getDim());
      return channels % (parts * kPanelColumns) == 0 &&
             channels / parts >= leastPanels * kPanelColumns;
    });
  };
  int64_t parts = 1;
  while (2 * parts <= wanted && cuts(2 * parts, parts == 1 ? 1 : 2)) {
    parts *= 2;
  }
  return parts;
}

// A function that returns one static tensor.concat (squeezenet's fire
// modules join their two expand convolutions so) has no linalg root, and
// whole it is one workgroup copying megabytes on one thread (8x55x55x128:
// 2.3-2.6x ONNX Runtime's time with 2 threads). It is cut into bands of its
// leading dimensions other than the concatenated one, like an elementwise
// op's: each workgroup writes its band of every operand into its slice of
// the result. An operand that is an argument is copied; one computed in
// the function (the flow phase's --fuse-into-concat: a convolution and its
// epilogue) has its producers fused into the band, the last of them writing
// straight into the result's slice, so the operand is never written whole
// nor copied; with a Winograd operand and few bands, each workgroup takes
// a part of every operand's channels too (concatChannelParts). Bands that
// would not divide the dimensions evenly leave it whole, but for a
// Winograd operand's rows (the image's last band shorter).
LogicalResult distributeConcat(func::FuncOp func) {
  auto returnOp = dyn_cast<func::ReturnOp>(func.getBody().front().back());
  if (!returnOp || returnOp.getNumOperands() != 1) {
    return success();
  }
  auto concat = returnOp.getOperand(0).getDefiningOp<tensor::ConcatOp>();
  if (!concat || !concat->hasOneUse()) {
    return success();
  }
  RankedTensorType type = concat.getResultType();
  Type elementType = type.getElementType();
  if (!type.hasStaticShape() || !elementType.isIntOrFloat() ||
      !llvm::all_of(concat.getInputs(), [&](Value input) {
        if (auto arg = dyn_cast<BlockArgument>(input)) {
          return arg.getOwner() == &func.front();
        }
        return input.hasOneUse() &&
               isa<TilingInterface>(input.getDefiningOp()) &&
               input.getDefiningOp()->getBlock() == &func.front();
      })) {
    return success();
  }
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  // Not cut: each workgroup takes the concatenated dimension whole.
  iterators[concat.getDim()] = utils::IteratorType::reduction;
  SmallVector<int64_t> sizes = chooseBandTileSizes(
      type.getShape(), iterators, widestElementBytes(TypeRange{type}));
  // Operands computed here (convolutions) want bands of more than one
  // microkernel row panel: each panel of B (the filter) brought into L1
  // then serves all of the band's pixels, not one row's (13 pixels of a
  // 13x13 image). NHWC joined along channels: bands of rows within one
  // image, the fewest rows that make kConcatBandPixels pixels while
  // kConcatMinBands bands remain (8 images of 13x13: whole images; one:
  // single rows).
  bool computed = llvm::any_of(concat.getInputs(), [](Value input) {
    return !isa<BlockArgument>(input);
  });
  // An operand computed by a Winograd convolution (hasWinogradFilter)
  // wants whole 4x4 output tiles. With kWinogradWorkgroups images or more:
  // rows a divisor of the height from 4 whose tiles waste the least, the
  // most such (squeezenet1_1's 55, 27 and 13: whole images). Fewer: bands
  // of whole tile rows, the last shorter (concatWinogradBandRows), and the
  // channels of every operand cut into parts when those bands are still
  // fewer than kWinogradWorkgroups (concatChannelParts).
  bool winograd = llvm::any_of(concat.getInputs(), [](Value input) {
    auto conv = findComputedInput<linalg::Conv2DNhwcHwcfOp>(input);
    return conv && hasWinogradFilter(conv);
  });
  int64_t parts = 1;
  if (computed && type.getRank() == 4 && concat.getDim() == 3) {
    int64_t images = type.getDimSize(0), height = type.getDimSize(1),
            width = type.getDimSize(2);
    int64_t rows = 1;
    for (int64_t d = 1; d <= height; ++d) {
      if (height % d == 0 && images * (height / d) >= kConcatMinBands) {
        rows = d;
        if (d * width >= kConcatBandPixels) {
          break;
        }
      }
    }
    if (winograd && images >= kWinogradWorkgroups) {
      rows = winogradBandRows(height, /*most=*/true);
    } else if (winograd) {
      rows = concatWinogradBandRows(height, width,
                                    ceilDiv(kWinogradWorkgroups, images));
      int64_t bands = images * ceilDiv(height, rows);
      if (bands < kWinogradWorkgroups) {
        parts = concatChannelParts(concat, ceilDiv(kWinogradWorkgroups, bands));
      }
    }
    sizes = {images > 1 ? 1 : 0, rows < height ? rows : 0, 0, 0};
    if (images == 1 && rows >= height && parts == 1) {
      sizes.clear();
    }
  }
  // Bands that do not divide the dimension evenly: only a Winograd
  // operand's rows (whole 4x4 tiles but for the image's last).
  auto uneven = [&](size_t dim) {
    return sizes[dim] && type.getDimSize(dim) % sizes[dim] != 0;
  };
  if (sizes.empty() ||
      llvm::any_of(llvm::seq<size_t>(0, sizes.size()), [&](size_t dim) {
        return uneven(dim) && !(winograd && dim == 1);
      })) {
    return success();
  }
  IRRewriter rewriter(func.getContext());
  Location loc = concat.getLoc();
  rewriter.setInsertionPoint(concat);
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    if (size) {
      lbs.push_back(rewriter.getIndexAttr(0));
      ubs.push_back(rewriter.getIndexAttr(type.getDimSize(dim)));
      steps.push_back(rewriter.getIndexAttr(size));
    }
  }
  // The channel parts, the innermost loop.
  if (parts > 1) {
    lbs.push_back(rewriter.getIndexAttr(0));
    ubs.push_back(rewriter.getIndexAttr(parts));
    steps.push_back(rewriter.getIndexAttr(1));
  }
  Value init =
      tensor::EmptyOp::create(rewriter, loc, type.getShape(), elementType);
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                      ValueRange{init}, std::nullopt);
  Value out = forall.getRegionIterArgs()[0];
  rewriter.setInsertionPointToStart(forall.getBody());
  SmallVector<OpFoldResult> unit(type.getRank(), rewriter.getIndexAttr(1));
  // Each operand's part of this iteration's band (its slice of the bands
  // of the cut dimensions; of the concatenated one, the iteration's part
  // of the operand, at `start` in the result) is read from the operand.
  // A computed one is inserted into the result, each insert into the
  // result of the one before: the insert of operand i writes the slice
  // `destinations[i]` of the result so far, which its fused producers then
  // compute into (the destination-passing chain that bufferizes in place),
  // and its parallel insert writes back what the chain wrote (in place,
  // no copy). An argument's part is copied by its parallel insert.
  SmallVector<tensor::ExtractSliceOp> operandSlices, destinations;
  SmallVector<tensor::InsertSliceOp> inserts;
  Value band = out;
  int64_t start = 0;
  for (Value input : concat.getInputs()) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(input.getType()).getShape();
    SmallVector<OpFoldResult> offsets, extents;
    unsigned iv = 0;
    for (auto [dim, size] : llvm::enumerate(sizes)) {
      if (size && uneven(dim)) {
        // The last band: what remains.
        AffineExpr d = rewriter.getAffineDimExpr(0);
        Value ivValue = forall.getInductionVar(iv++);
        offsets.push_back(ivValue);
        extents.push_back(affine::makeComposedFoldedAffineMin(
            rewriter, loc,
            AffineMap::get(
                1, 0, {rewriter.getAffineConstantExpr(size), shape[dim] - d},
                rewriter.getContext()),
            {ivValue}));
      } else if (size) {
        offsets.push_back(forall.getInductionVar(iv++));
        extents.push_back(rewriter.getIndexAttr(size));
      } else {
        offsets.push_back(rewriter.getIndexAttr(0));
        extents.push_back(rewriter.getIndexAttr(shape[dim]));
      }
    }
    int64_t dim = concat.getDim();
    SmallVector<OpFoldResult> within = offsets;
    within[dim] = rewriter.getIndexAttr(start);
    if (parts > 1) {
      int64_t part = shape[dim] / parts;
      AffineExpr p = rewriter.getAffineDimExpr(0);
      offsets[dim] = affine::makeComposedFoldedAffineApply(
          rewriter, loc, p * part, {forall.getInductionVar(iv)});
      within[dim] = affine::makeComposedFoldedAffineApply(
          rewriter, loc, p * part + start, {forall.getInductionVar(iv)});
      extents[dim] = rewriter.getIndexAttr(part);
    }
    start += shape[dim];
    if (isa<BlockArgument>(input)) {
      Value part = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets,
                                                  extents, unit);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(rewriter, loc, part, out, within,
                                            extents, unit);
      continue;
    }
    destinations.push_back(tensor::ExtractSliceOp::create(
        rewriter, loc, band, within, extents, unit));
    operandSlices.push_back(tensor::ExtractSliceOp::create(
        rewriter, loc, input, offsets, extents, unit));
    inserts.push_back(tensor::InsertSliceOp::create(
        rewriter, loc, operandSlices.back().getResult(), band, within, extents,
        unit));
    band = inserts.back().getResult();
  }
  for (tensor::InsertSliceOp insert : inserts) {
    Value written = tensor::ExtractSliceOp::create(
        rewriter, loc, band, insert.getMixedOffsets(), insert.getMixedSizes(),
        unit);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, written, out,
                                          insert.getMixedOffsets(),
                                          insert.getMixedSizes(), unit);
  }
  rewriter.replaceOp(concat, forall.getResult(0));
  // Producers fused into the band, slice by slice: each fused op's operands
  // become slices of their own producers, fused in turn.
  SmallVector<LoopLikeOpInterface> loops{
      cast<LoopLikeOpInterface>(forall.getOperation())};
  auto fusible = [&](tensor::ExtractSliceOp sliceOp) {
    Operation *def = sliceOp.getSource().getDefiningOp();
    return def && isa<TilingInterface>(def) && !forall->isAncestor(def);
  };
  SmallVector<tensor::ExtractSliceOp> worklist;
  for (tensor::ExtractSliceOp sliceOp : operandSlices) {
    if (fusible(sliceOp)) {
      worklist.push_back(sliceOp);
    }
  }
  while (!worklist.empty()) {
    tensor::ExtractSliceOp sliceOp = worklist.pop_back_val();
    std::optional<scf::SCFFuseProducerOfSliceResult> fused =
        scf::tileAndFuseProducerOfSlice(rewriter, sliceOp, loops);
    if (!fused) {
      return sliceOp.getSource().getDefiningOp()->emitError()
             << "cannot compute this concatenation operand in bands "
                "(llvm-cpu)";
    }
    for (Operation *generated : fused->generatedSlices) {
      auto next = dyn_cast<tensor::ExtractSliceOp>(generated);
      if (next && fusible(next)) {
        worklist.push_back(next);
      }
    }
  }
  // Each operand's band is computed into its slice of the result: the
  // tensor.empty at the end of its chain of destinations (the epilogue's,
  // else the fill's under the convolution) becomes that slice, which the
  // parallel insert then writes in place (a tensor.empty's contents are
  // undefined, so any tensor may stand for it).
  auto isEmpty = [](Value value) {
    if (auto sliceOp = value.getDefiningOp<tensor::ExtractSliceOp>()) {
      value = sliceOp.getSource();
    }
    return static_cast<bool>(value.getDefiningOp<tensor::EmptyOp>());
  };
  for (auto [insert, destination] : llvm::zip(inserts, destinations)) {
    Value value = insert.getSource();
    while (auto dps = value.getDefiningOp<DestinationStyleOpInterface>()) {
      OpOperand *init = dps.getTiedOpOperand(cast<OpResult>(value));
      if (isEmpty(init->get())) {
        if (init->get().getType() == destination.getType()) {
          rewriter.modifyOpInPlace(dps, [&] { init->set(destination); });
        }
        break;
      }
      value = init->get();
    }
  }
  // The producers computed whole before the loop, now dead, go with the
  // canonicalization that ends tileAndDistributeToWorkgroups.
  return success();
}

// Workers take a dispatch's workgroups in contiguous ranges of their linear
// order, in which the forall's last dimension varies fastest
// (bindWorkgroupIds): the first tiled dimension is what the workers split
// between them. That is the rows (a matmul's, a convolution's images and
// output rows), which keeps each worker on the part of the input that it
// wrote itself in the dispatch before (in its own cache; with the columns
// first, three of the transformer's four matmul shapes at batch 8 took
// 1.03-1.10x as long on two workers), unless the op's weights outweigh
// its input: then each worker takes a share of the columns (output
// channels) and reads that share of the weights alone (resnet18's 3x3
// 256 -> 256 at 14x14, a 2.4 MB filter: 1.05-1.09x with the rows first).
// Returns the tiled loop to move first, or nothing.
std::optional<unsigned> columnsFirst(const Root &root,
                                     ArrayRef<int64_t> sizes) {
  linalg::LinalgOp op = root.linalgOp();
  SmallVector<unsigned> tiled;
  for (auto [index, size] : llvm::enumerate(sizes)) {
    if (size != 0) {
      tiled.push_back(index);
    }
  }
  if (!op || tiled.size() != 2) {
    return std::nullopt;
  }
  // The columns are loop 1 of a matmul (or its 2-d epilogue), loop 3 (the
  // filters) of a convolution (or its NHWC epilogue); other tilings (a
  // depthwise chain's bands, pooled bands) keep their order.
  bool weightsOutweigh = false;
  if (linalg::MatmulOp matmul = findDistributedMatmul(op)) {
    SmallVector<int64_t> r = matmul.getStaticLoopRanges();
    // Weights k x n against an input m x k.
    weightsOutweigh =
        tiled[1] == 1 && !ShapedType::isDynamic(r[0]) && r[1] > r[0];
  } else if (auto conv = findDistributed<linalg::Conv2DNhwcHwcfOp>(op)) {
    SmallVector<int64_t> r = conv.getStaticLoopRanges();
    // The filter (kh x kw x c x f) against the input (about n x h x w x
    // c, h and w the output's).
    weightsOutweigh = tiled[1] == 3 &&
                      llvm::none_of(r, ShapedType::isDynamic) &&
                      r[4] * r[5] * r[3] > r[0] * r[1] * r[2];
  }
  if (!weightsOutweigh) {
    return std::nullopt;
  }
  return tiled[1];
}

// A function that only returns a static slice of a tensor (the attention's
// queries, keys and values taken from one projection: three 128x8x256 of
// 128x8x768) has no linalg root: it would be one workgroup copying a
// megabyte on one thread (0.03-0.29 ms a slice with two workers, 2-3x ONNX
// Runtime's split). The slice is copied by a linalg.copy instead, a root
// cut like an elementwise op's. Returns whether it made one.
bool copyReturnedSlice(func::FuncOp func) {
  auto returnOp = dyn_cast<func::ReturnOp>(func.getBody().front().back());
  if (!returnOp || returnOp.getNumOperands() != 1) {
    return false;
  }
  auto slice = returnOp.getOperand(0).getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice->hasOneUse() || !slice.getType().hasStaticShape()) {
    return false;
  }
  OpBuilder builder(returnOp);
  Location loc = slice.getLoc();
  Value empty =
      tensor::EmptyOp::create(builder, loc, slice.getType().getShape(),
                              slice.getType().getElementType());
  Value copy = linalg::CopyOp::create(builder, loc, slice.getResult(), empty)
                   .getResult(0);
  returnOp->setOperand(0, copy);
  return true;
}

// Tiles `func`'s root over workgroups (an scf.forall), or, with
// `sequential`, into scf.for loops that one workgroup runs: only roots with
// dynamic ranges are tiled then, so their temporaries have bounded sizes.
LogicalResult distributeFunction(func::FuncOp func, bool sequential,
                                 bool tileDynamicRanges,
                                 int64_t streamedFilterBytes) {
  std::optional<Root> root = findRoot(func);
  if (!root && !sequential && copyReturnedSlice(func)) {
    root = findRoot(func);
  }
  if (!root) {
    // One workgroup, or bands of a concatenation.
    return sequential ? success() : distributeConcat(func);
  }
  bool dynamic = llvm::any_of(root->staticLoopRanges(), ShapedType::isDynamic);
  if (sequential && (!dynamic || !tileDynamicRanges)) {
    return success();
  }
  SmallVector<int64_t> sizes = chooseTileSizes(*root, streamedFilterBytes);
  if (sizes.empty()) {
    return success();
  }
  IRRewriter rewriter(func.getContext());
  rewriter.setInsertionPoint(root->op);
  // An init that is an input binding (a matmul accumulating into a
  // loop-carried tensor) is copied into the result tile by tile, inside the
  // workgroup loop: taken as it is, the result would be a copy of the whole
  // input made before the loop, which no workgroup owns (and the export
  // would fall back to one workgroup).
  for (OpOperand &init :
       cast<DestinationStyleOpInterface>(root->op).getDpsInitsMutable()) {
    auto arg = dyn_cast<BlockArgument>(init.get());
    auto type = dyn_cast<RankedTensorType>(init.get().getType());
    if (!arg || arg.getOwner() != &func.front() || !type) {
      continue;
    }
    Location loc = root->op->getLoc();
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, arg),
        type.getElementType());
    init.set(linalg::CopyOp::create(rewriter, loc, arg, empty).getResult(0));
  }
  SmallVector<OpFoldResult> tileSizes;
  for (int64_t size : sizes) {
    tileSizes.push_back(rewriter.getIndexAttr(size));
  }
  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setTileSizes(tileSizes);
  if (std::optional<unsigned> columns = columnsFirst(*root, sizes)) {
    SmallVector<int64_t> interchange = {static_cast<int64_t>(*columns)};
    for (int64_t loop = 0, e = static_cast<int64_t>(sizes.size()); loop < e;
         ++loop) {
      if (loop != static_cast<int64_t>(*columns)) {
        interchange.push_back(loop);
      }
    }
    tilingOptions.setInterchange(interchange);
  }
  tilingOptions.setLoopType(sequential
                                ? scf::SCFTilingOptions::LoopType::ForOp
                                : scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tilingOptions);
  // Fuse every producer; the returned ones also yield their tiles.
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        scf::SCFTileAndFuseOptions::ControlFnResult control;
        control.yieldProducerReplacement =
            llvm::is_contained(root->returnedProducerResults, producer);
        return control;
      });
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root->op), options);
  if (failed(result)) {
    return root->op->emitError()
           << "cannot tile this op over workgroups (llvm-cpu)";
  }
  for (Value original : root->op->getResults()) {
    auto replacement = result->replacements.find(original);
    if (replacement == result->replacements.end()) {
      return root->op->emitError() << "tiling over workgroups lost a result";
    }
    rewriter.replaceAllUsesWith(original, replacement->second);
  }
  // A returned producer that did not fuse stays whole before the loop; the
  // workgroup binding then finds it writing a result and falls back to one
  // workgroup.
  for (OpResult original : root->returnedProducerResults) {
    auto replacement = result->replacements.find(original);
    if (replacement != result->replacements.end()) {
      rewriter.replaceUsesWithIf(
          original, replacement->second,
          [](OpOperand &use) { return isa<func::ReturnOp>(use.getOwner()); });
    }
  }
  return success();
}

// A band's padded window over rows that the band computes (a convolution
// fused before a depthwise convolution, isFusedIntoDepthwise) comes out of
// tile and fuse guarded against an empty slice:
//   scf.if %empty { tensor.generate (the pad value) }
//   else { the rows' ops; tensor.pad of their result }
// The slice's offsets and sizes are clamped to its source, so the else
// branch is valid for no rows too (its ops compute nothing, and a pad of
// nothing is all padding): it runs unguarded, and bufferization then
// leaves a window the depthwise microkernel reads in place
// (UkernelCommon.cpp, matchPaddedAlloc) instead of two copies of it.
// Guards over a slice of an input (no op computes the pad's source) stay:
// the microkernel reads those in place already.
void unguardComputedPads(func::FuncOp func) {
  SmallVector<scf::IfOp> guards;
  func.walk([&](scf::IfOp guard) {
    if (guard.getNumResults() != 1 || guard.getElseRegion().empty()) {
      return;
    }
    auto generate =
        guard.thenYield().getOperand(0).getDefiningOp<tensor::GenerateOp>();
    auto pad = guard.elseYield().getOperand(0).getDefiningOp<tensor::PadOp>();
    if (!generate || !pad || pad->getBlock() != guard.elseBlock() ||
        !pad.getSource().getDefiningOp<linalg::LinalgOp>() ||
        !llvm::all_of(guard.elseBlock()->without_terminator(),
                      [](Operation &op) { return isMemoryEffectFree(&op); })) {
      return;
    }
    guards.push_back(guard);
  });
  for (scf::IfOp guard : guards) {
    Value padded = guard.elseYield().getOperand(0);
    for (Operation &op :
         llvm::make_early_inc_range(guard.elseBlock()->without_terminator())) {
      op.moveBefore(guard);
    }
    guard.getResult(0).replaceAllUsesWith(padded);
    guard.erase();
  }
}

// Depth of the sequential tiles a contraction with a dynamic depth is cut
// into inside its workgroup: each tile is a microkernel call with bounded
// scratch (its packed operands), accumulating into the workgroup's output.
constexpr int64_t kDynamicDepthTile = 256;

// Cuts the dynamic depth of every f32 matmul and batch_matmul in `func` (a
// workgroup's tile, or the whole op) into an scf.for over depth tiles of
// kDynamicDepthTile: the result tile is initialized once (its fill stays
// before the loop) and each iteration adds one tile's product, so the
// microkernel takes each with bounded scratch instead of the slow generic
// path taking the whole unbounded depth.
LogicalResult tileDynamicDepths(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> products;
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
        !op.hasPureTensorSemantics() ||
        !llvm::all_of(op->getOperandTypes(), [](Type type) {
          return getElementTypeOrSelf(type).isF32();
        })) {
      return;
    }
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
        matmul && matmul.hasUserDefinedMaps()) {
      return;
    }
    if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
        batch && batch.hasUserDefinedMaps()) {
      return;
    }
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ShapedType::isDynamic(ranges.back())) {
      products.push_back(op);
    }
  });
  IRRewriter rewriter(func.getContext());
  for (linalg::LinalgOp op : products) {
    rewriter.setInsertionPoint(op);
    SmallVector<OpFoldResult> sizes(op.getNumLoops(), rewriter.getIndexAttr(0));
    sizes.back() = rewriter.getIndexAttr(kDynamicDepthTile);
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled)) {
      return op->emitError() << "cannot tile this op's depth (llvm-cpu)";
    }
    rewriter.replaceOp(op, tiled->replacements);
  }
  return success();
}

// Ops such as linalg.softmax are aggregates of simpler linalg ops; they are
// decomposed (until nothing decomposes further) so tiling, fusion and the
// loop lowering see only ops they handle.
LogicalResult decomposeAggregates(ModuleOp module, bool keepSoftmaxRows) {
  IRRewriter rewriter(module.getContext());
  for (int round = 0; round < 4; ++round) {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    module.walk([&](linalg::AggregatedOpInterface op) {
      if (!keepSoftmaxRows || !isRowSoftmax(op)) {
        aggregates.push_back(op);
      }
    });
    if (aggregates.empty()) {
      return success();
    }
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> replacements =
          op.decomposeOperation(rewriter);
      if (failed(replacements)) {
        return op->emitError() << "llvm-cpu cannot decompose this op";
      }
      rewriter.replaceOp(op, *replacements);
    }
  }
  return success();
}

// Named elementwise ops (linalg.add, linalg.exp...) become linalg.generic so
// that elementwise fusion sees them; fills and copies stay, as destinations.
void generalizeElementwiseOps(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    bool packedWeight = isa<linalg::TransposeOp>(op.getOperation()) &&
                        llvm::any_of(op->getUsers(), [](Operation *user) {
                          return isPackedWeightView(user);
                        });
    if (!isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(
            op.getOperation()) &&
        !packedWeight && op.hasPureTensorSemantics() &&
        linalg::isElementwise(op)) {
      named.push_back(op);
    }
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
}

// Upstream's linalg-fuse-elementwise-ops (elementwise producers into their
// consumers, reshapes moved by expansion, constants folded), except that a
// packed weight's reshape is not moved into the op that reads it.
LogicalResult fuseElementwiseOps(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  linalg::ControlFusionFn control = [](OpOperand *operand) {
    Operation *producer = operand->get().getDefiningOp();
    return producer && producer->hasOneUse() && !isPackedWeightView(producer) &&
           !isPackedWeightView(operand->getOwner());
  };
  linalg::populateElementwiseOpsFusionPatterns(patterns, control);
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
  tensor::populateBubbleUpExpandShapePatterns(patterns);
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
  context->getLoadedDialect<linalg::LinalgDialect>()
      ->getCanonicalizationPatterns(patterns);
  linalg::populateConstantFoldLinalgOperations(patterns, control);
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (auto func : module.getOps<func::FuncOp>()) {
    if (failed(applyPatternsGreedily(func, frozen))) {
      return func.emitError()
             << "llvm-cpu: elementwise fusion did not converge";
    }
  }
  return success();
}

// A result collapsed after its root op (tensor.collapse_shape of a
// linalg.generic) hides the root and would need a copy into the result
// binding. The generic is collapsed instead, and the collapse moves to its
// inputs, where it is only a view. (Expanded results are already handled by
// linalg-fuse-elementwise-ops, which moves tensor.expand_shape up.)
LogicalResult collapseReturnedGenerics(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  linalg::ControlFusionFn returnedOnly = [](OpOperand *operand) {
    Operation *user = operand->getOwner();
    return isa<tensor::CollapseShapeOp>(user) &&
           llvm::all_of(user->getUsers(), [](Operation *use) {
             return isa<func::ReturnOp>(use);
           });
  };
  linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns, returnedOnly);
  // collapse_shape(tensor.empty) becomes a tensor.empty of the new shape, so
  // the result is not a view of a temporary.
  tensor::populateFoldTensorEmptyPatterns(patterns);
  return applyPatternsGreedily(module, std::move(patterns));
}

// A splat tensor constant larger than this is computed by a linalg.fill
// rather than stored: a splat of a terabyte would otherwise become a global
// of that many bytes in the kernel library (LLVM runs out of memory).
constexpr int64_t kMaxStoredSplatBytes = 4096;

void splatsToFills(ModuleOp module) {
  SmallVector<arith::ConstantOp> splats;
  module.walk([&](arith::ConstantOp op) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!type || !splat || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat()) {
      return;
    }
    int64_t bytes = std::max<int64_t>(
        1, (type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
    if (type.getNumElements() > kMaxStoredSplatBytes / bytes) {
      splats.push_back(op);
    }
  });
  for (arith::ConstantOp op : splats) {
    OpBuilder builder(op);
    auto type = cast<RankedTensorType>(op.getType());
    Value scalar = arith::ConstantOp::create(
        builder, op.getLoc(),
        cast<TypedAttr>(
            cast<SplatElementsAttr>(op.getValue()).getSplatValue<Attribute>()));
    Value empty = tensor::EmptyOp::create(builder, op.getLoc(), type.getShape(),
                                          type.getElementType());
    Value fill = linalg::FillOp::create(builder, op.getLoc(), scalar, empty)
                     .getResult(0);
    op.replaceAllUsesWith(fill);
    op.erase();
  }
}

} // namespace

LogicalResult tileAndDistributeToWorkgroups(
    ModuleOp module, const llvm::StringSet<> &singleWorkgroup,
    bool tileDynamicRanges, bool keepSoftmaxRows, int64_t streamedFilterBytes) {
  if (streamedFilterBytes <= 0) {
    streamedFilterBytes = kDefaultStreamedFilterBytes;
  }
  if (failed(decomposeAggregates(module, keepSoftmaxRows))) {
    return failure();
  }
  generalizeElementwiseOps(module);
  // Calls to private helpers are inlined (and the helpers dropped) so the
  // root is visible; elementwise chains become one linalg.generic, so the
  // root's producers are few and each fuses whole into the workgroup loop.
  if (failed(runPassPipeline(module, "inline,symbol-dce")) ||
      failed(fuseElementwiseOps(module)) ||
      failed(runPassPipeline(module, "func.func(canonicalize,cse)"))) {
    return failure();
  }
  if (failed(collapseReturnedGenerics(module))) {
    return module.emitError()
           << "llvm-cpu: collapsing returned generics did not converge";
  }
  splatsToFills(module);
  // Tiling creates ops of these dialects outside of any pass.
  module.getContext()
      ->loadDialect<affine::AffineDialect, arith::ArithDialect, scf::SCFDialect,
                    tensor::TensorDialect>();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic()) {
      continue;
    }
    if (failed(distributeFunction(func,
                                  singleWorkgroup.contains(func.getSymName()),
                                  tileDynamicRanges, streamedFilterBytes)) ||
        (tileDynamicRanges && failed(tileDynamicDepths(func)))) {
      return failure();
    }
  }
  // The untiled producers are dead now, once the sizes the workgroup loops
  // read from them (the batch of a padded input, tensor.dim of the pad)
  // come from their operands instead.
  RewritePatternSet dims(module.getContext());
  memref::populateResolveRankedShapedTypeResultDimsPatterns(dims);
  if (failed(applyPatternsGreedily(module, std::move(dims)))) {
    return module.emitError() << "llvm-cpu: resolving sizes did not converge";
  }
  if (failed(runPassPipeline(module, "func.func(canonicalize,cse)"))) {
    return failure();
  }
  // After canonicalization, which folds the casts between a guarded pad
  // and its scf.yield.
  for (auto func : module.getOps<func::FuncOp>()) {
    unguardComputedPads(func);
  }
  return success();
}

} // namespace mlir::strata::llvmcpu
