// Every transcendental math op on f64, f32 and f16, library-free: upstream's
// f32 polynomials (f16 computed in f32), log10 through log, f64 through
// MathExpansions.cpp, f32 sin/cos/cbrt/atan2 through the f64 versions; against
// numpy's float64 results (relative 1e-13 for f64, 2e-6 for f32, 2e-3 for
// f16 of the largest result of each op, which is coarse for the small
// ones: the f64 errors are a few ulps, see docs/compiler.md).
// Inputs include subnormal, huge and near-zero values and large arguments
// of sin and cos.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=exp_f64 --input="8xf64=-700.5 -3.0 -1e-09 0.0 0.5 2.0 88.0 709.0" --expected_output="8xf64=5.980196118639791e-305 0.04978706836786394 0.999999999 1.0 1.6487212707001282 7.38905609893065 1.651636254994002e+38 8.218407461554972e+307" --expected_f64_threshold=8.22e+294
// RUN: strata-run --module=%t.vmfb --function=expm1_f64 --input="8xf64=-20.0 -0.4 -1e-10 0.0 1e-12 0.3 0.6 30.0" --expected_output="8xf64=-0.9999999979388463 -0.32967995396436073 -9.999999999500001e-11 0.0 1.0000000000005e-12 0.3498588075760031 0.8221188003905089 10686474581523.463" --expected_f64_threshold=1.07
// RUN: strata-run --module=%t.vmfb --function=exp2_f64 --input="8xf64=-1000.0 -3.5 0.0 0.25 1.0 10.0 52.5 1000.0" --expected_output="8xf64=9.332636185032189e-302 0.08838834764831845 1.0 1.189207115002721 2.0 1024.0 6369051672525773.0 1.0715086071862673e+301" --expected_f64_threshold=1.07e+288
// RUN: strata-run --module=%t.vmfb --function=log_f64 --input="8xf64=1e-310 1e-20 0.5 1.0 1.0000001 2.0 10000000000.0 1e+300" --expected_output="8xf64=-713.8013788281542 -46.051701859880914 -0.6931471805599453 0.0 9.999999505838704e-08 0.6931471805599453 23.025850929940457 690.7755278982137" --expected_f64_threshold=7.14e-11
// RUN: strata-run --module=%t.vmfb --function=log2_f64 --input="8xf64=1e-300 0.125 0.7 1.0 3.0 1024.0 100000.0 1e+300" --expected_output="8xf64=-996.5784284662087 -3.0 -0.5145731728297583 0.0 1.584962500721156 10.0 16.609640474436812 996.5784284662087" --expected_f64_threshold=9.97e-11
// RUN: strata-run --module=%t.vmfb --function=log10_f64 --input="8xf64=1e-300 1e-05 0.5 1.0 2.0 1000.0 12345.0 1e+300" --expected_output="8xf64=-300.0 -5.0 -0.3010299956639812 0.0 0.3010299956639812 3.0 4.091491094267951 300.0" --expected_f64_threshold=3e-11
// RUN: strata-run --module=%t.vmfb --function=log1p_f64 --input="8xf64=-0.999 -0.5 -1e-10 0.0 1e-12 0.4 10.0 1e+200" --expected_output="8xf64=-6.907755278982136 -0.6931471805599453 -1.00000000005e-10 0.0 9.999999999995e-13 0.3364722366212129 2.3978952727983707 460.5170185988091" --expected_f64_threshold=4.61e-11
// RUN: strata-run --module=%t.vmfb --function=sin_f64 --input="8xf64=-10000.5 -3.0 -1e-09 0.0 0.7 1.5707963267948966 100.0 12345.678" --expected_output="8xf64=0.7246894586135745 -0.1411200080598672 -1e-09 0.0 0.644217687237691 1.0 -0.5063656411097587 -0.7040813137533817" --expected_f64_threshold=1e-13
// RUN: strata-run --module=%t.vmfb --function=cos_f64 --input="8xf64=-10000.5 -3.0 -1e-09 0.0 0.7 1.5707963267948966 100.0 12345.678" --expected_output="8xf64=-0.689075604396473 -0.9899924966004454 1.0 1.0 0.7648421872844886 6.123233995736766e-17 0.8623188722876839 0.7101193587160629" --expected_f64_threshold=1e-13
// RUN: strata-run --module=%t.vmfb --function=tan_f64 --input="8xf64=-1000.25 -1.2 -1e-09 0.0 0.5 1.0 1.5 123.0" --expected_output="8xf64=-2.76299050951037 -2.5721516221263183 -1e-09 0.0 0.5463024898437905 1.557407724654902 14.10141994717172 0.5179274715856551" --expected_f64_threshold=1.41e-12
// RUN: strata-run --module=%t.vmfb --function=sinh_f64 --input="8xf64=-30.0 -2.0 -1e-09 0.0 1e-06 0.5 5.0 700.0" --expected_output="8xf64=-5343237290762.231 -3.6268604078470186 -1e-09 0.0 1.0000000000001666e-06 0.5210953054937474 74.20321057778877 5.0711602736750225e+303" --expected_f64_threshold=5.07e+290
// RUN: strata-run --module=%t.vmfb --function=cosh_f64 --input="8xf64=-30.0 -2.0 -1e-09 0.0 1e-06 0.5 5.0 700.0" --expected_output="8xf64=5343237290762.23 3.7621956910836314 1.0 1.0 1.0000000000005 1.1276259652063807 74.20994852478785 5.0711602736750225e+303" --expected_f64_threshold=5.07e+290
// RUN: strata-run --module=%t.vmfb --function=tanh_f64 --input="8xf64=-30.0 -2.0 -1e-09 0.0 1e-06 0.5 5.0 19.0" --expected_output="8xf64=-1.0 -0.9640275800758169 -1e-09 0.0 9.999999999996666e-07 0.46211715726000974 0.9999092042625951 1.0" --expected_f64_threshold=1e-13
// RUN: strata-run --module=%t.vmfb --function=asin_f64 --input="8xf64=-1.0 -0.9 -0.3 0.0 1e-09 0.5 0.99 1.0" --expected_output="8xf64=-1.5707963267948966 -1.1197695149986342 -0.30469265401539747 0.0 1e-09 0.5235987755982989 1.4292568534704693 1.5707963267948966" --expected_f64_threshold=1.57e-13
// RUN: strata-run --module=%t.vmfb --function=acos_f64 --input="8xf64=-1.0 -0.9 -0.3 0.0 1e-09 0.5 0.99 1.0" --expected_output="8xf64=3.141592653589793 2.6905658417935308 1.8754889808102941 1.5707963267948966 1.5707963257948965 1.0471975511965976 0.1415394733244273 0.0" --expected_f64_threshold=3.14e-13
// RUN: strata-run --module=%t.vmfb --function=atan_f64 --input="8xf64=-10000000000.0 -3.0 -0.3 0.0 1e-09 0.45 1.0 100000.0" --expected_output="8xf64=-1.5707963266948965 -1.2490457723982544 -0.2914567944778671 0.0 1e-09 0.4228539261329407 0.7853981633974483 1.570786326794897" --expected_f64_threshold=1.57e-13
// RUN: strata-run --module=%t.vmfb --function=asinh_f64 --input="8xf64=-10000000000.0 -3.0 -0.3 0.0 1e-09 0.45 1.0 100000.0" --expected_output="8xf64=-23.7189981105004 -1.8184464592320668 -0.29567304756342244 0.0 1e-09 0.4360496688517405 0.881373587019543 12.206072645555174" --expected_f64_threshold=2.37e-12
// RUN: strata-run --module=%t.vmfb --function=acosh_f64 --input="8xf64=1.0 1.0000001 1.5 2.0 3.0 100.0 100000000.0 1e+300" --expected_output="8xf64=0.0 0.0004472135919037347 0.9624236501192069 1.3169578969248168 1.762747174039086 5.298292365610485 19.11382792451231 691.4686750787737" --expected_f64_threshold=6.91e-11
// RUN: strata-run --module=%t.vmfb --function=atanh_f64 --input="8xf64=-0.999 -0.5 -1e-09 0.0 1e-12 0.3 0.7 0.99" --expected_output="8xf64=-3.8002011672501994 -0.5493061443340549 -1e-09 0.0 1e-12 0.3095196042031117 0.8673005276940531 2.6466524123622457" --expected_f64_threshold=3.8e-13
// RUN: strata-run --module=%t.vmfb --function=erf_f64 --input="8xf64=-6.0 -2.5 -0.5 0.0 1e-09 1.0 1.99 3.0" --expected_output="8xf64=-1.0 -0.999593047982555 -0.5204998778130465 0.0 1.1283791670955127e-09 0.8427007929497149 0.995111413199617 0.9999779095030014" --expected_f64_threshold=1e-13
// RUN: strata-run --module=%t.vmfb --function=erfc_f64 --input="8xf64=-6.0 -2.5 -0.5 0.0 1e-09 1.0 2.5 10.0" --expected_output="8xf64=2.0 1.999593047982555 1.5204998778130465 1.0 0.9999999988716208 0.15729920705028513 0.0004069520174449589 2.088487583762545e-45" --expected_f64_threshold=2e-12
// RUN: strata-run --module=%t.vmfb --function=cbrt_f64 --input="8xf64=-1e+300 -27.0 -1e-09 0.0 1e-300 2.0 1000.0 1e+20" --expected_output="8xf64=-9.999999999999998e+99 -3.0 -0.001 0.0 1e-100 1.2599210498948732 10.0 4641588.833612779" --expected_f64_threshold=1e+87
// RUN: strata-run --module=%t.vmfb --function=exp_f32 --input="6xf32=-3.0 -9.999999717180685e-10 0.0 0.5 2.0 88.0" --expected_output="6xf32=0.049787066876888275 1.0 1.0 1.6487212181091309 7.389056205749512 1.6516362661361307e+38" --expected_f32_threshold=3.3e+32
// RUN: strata-run --module=%t.vmfb --function=expm1_f32 --input="8xf32=-20.0 -0.4000000059604645 -1.000000013351432e-10 0.0 9.999999960041972e-13 0.30000001192092896 0.6000000238418579 30.0" --expected_output="8xf32=-1.0 -0.3296799659729004 -1.000000013351432e-10 0.0 9.999999960041972e-13 0.349858820438385 0.8221188187599182 10686474223616.0" --expected_f32_threshold=2.14e+07
// RUN: strata-run --module=%t.vmfb --function=exp2_f32 --input="6xf32=-3.5 0.0 0.25 1.0 10.0 52.5" --expected_output="6xf32=0.0883883461356163 1.0 1.1892070770263672 2.0 1024.0 6369051563524096.0" --expected_f32_threshold=1.27e+10
// RUN: strata-run --module=%t.vmfb --function=log_f32 --input="6xf32=9.999999682655225e-21 0.5 1.0 1.0000001192092896 2.0 10000000000.0" --expected_output="6xf32=-46.051700592041016 -0.6931471824645996 0.0 1.1920928244535389e-07 0.6931471824645996 23.025850296020508" --expected_f32_threshold=9.21e-05
// RUN: strata-run --module=%t.vmfb --function=log2_f32 --input="6xf32=0.125 0.699999988079071 1.0 3.0 1024.0 100000.0" --expected_output="6xf32=-3.0 -0.5145732164382935 0.0 1.5849624872207642 10.0 16.60964012145996" --expected_f32_threshold=3.32e-05
// RUN: strata-run --module=%t.vmfb --function=log10_f32 --input="6xf32=9.999999747378752e-06 0.5 1.0 2.0 1000.0 12345.0" --expected_output="6xf32=-5.0 -0.3010300099849701 0.0 0.3010300099849701 3.0 4.091491222381592" --expected_f32_threshold=1e-05
// RUN: strata-run --module=%t.vmfb --function=log1p_f32 --input="7xf32=-0.9990000128746033 -0.5 -1.000000013351432e-10 0.0 9.999999960041972e-13 0.4000000059604645 10.0" --expected_output="7xf32=-6.907768249511719 -0.6931471824645996 -1.000000013351432e-10 0.0 9.999999960041972e-13 0.3364722430706024 2.397895336151123" --expected_f32_threshold=1.38e-05
// RUN: strata-run --module=%t.vmfb --function=sin_f32 --input="8xf32=-10000.5 -3.0 -9.999999717180685e-10 0.0 0.699999988079071 1.5707963705062866 100.0 12345.677734375" --expected_output="8xf32=0.7246894836425781 -0.14112000167369843 -9.999999717180685e-10 0.0 0.6442176699638367 1.0 -0.5063656568527222 -0.7042698860168457" --expected_f32_threshold=2e-06
// RUN: strata-run --module=%t.vmfb --function=cos_f32 --input="8xf32=-10000.5 -3.0 -9.999999717180685e-10 0.0 0.699999988079071 1.5707963705062866 100.0 12345.677734375" --expected_output="8xf32=-0.6890755891799927 -0.9899924993515015 1.0 1.0 0.7648422122001648 -4.371138828673793e-08 0.8623188734054565 0.7099323272705078" --expected_f32_threshold=2e-06
// RUN: strata-run --module=%t.vmfb --function=tan_f32 --input="8xf32=-1000.25 -1.2000000476837158 -9.999999717180685e-10 0.0 0.5 1.0 1.5 123.0" --expected_output="8xf32=-2.7629904747009277 -2.5721518993377686 -9.999999717180685e-10 0.0 0.5463024973869324 1.5574077367782593 14.101420402526855 0.5179274678230286" --expected_f32_threshold=2.82e-05
// RUN: strata-run --module=%t.vmfb --function=sinh_f32 --input="7xf32=-30.0 -2.0 -9.999999717180685e-10 0.0 9.999999974752427e-07 0.5 5.0" --expected_output="7xf32=-5343237111808.0 -3.6268603801727295 -9.999999717180685e-10 0.0 9.999999974752427e-07 0.5210952758789062 74.20320892333984" --expected_f32_threshold=1.07e+07
// RUN: strata-run --module=%t.vmfb --function=cosh_f32 --input="7xf32=-30.0 -2.0 -9.999999717180685e-10 0.0 9.999999974752427e-07 0.5 5.0" --expected_output="7xf32=5343237111808.0 3.762195587158203 1.0 1.0 1.0 1.1276259422302246 74.20994567871094" --expected_f32_threshold=1.07e+07
// RUN: strata-run --module=%t.vmfb --function=tanh_f32 --input="8xf32=-30.0 -2.0 -9.999999717180685e-10 0.0 9.999999974752427e-07 0.5 5.0 19.0" --expected_output="8xf32=-1.0 -0.9640275835990906 -9.999999717180685e-10 0.0 9.999999974752427e-07 0.46211716532707214 0.9999092221260071 1.0" --expected_f32_threshold=2e-06
// RUN: strata-run --module=%t.vmfb --function=asin_f32 --input="8xf32=-1.0 -0.8999999761581421 -0.30000001192092896 0.0 9.999999717180685e-10 0.5 0.9900000095367432 1.0" --expected_output="8xf32=-1.5707963705062866 -1.1197694540023804 -0.30469265580177307 0.0 9.999999717180685e-10 0.5235987901687622 1.4292569160461426 1.5707963705062866" --expected_f32_threshold=3.14e-06
// RUN: strata-run --module=%t.vmfb --function=acos_f32 --input="8xf32=-1.0 -0.8999999761581421 -0.30000001192092896 0.0 9.999999717180685e-10 0.5 0.9900000095367432 1.0" --expected_output="8xf32=3.1415927410125732 2.690565824508667 1.8754889965057373 1.5707963705062866 1.5707963705062866 1.0471975803375244 0.14153940975666046 0.0" --expected_f32_threshold=6.28e-06
// RUN: strata-run --module=%t.vmfb --function=atan_f32 --input="8xf32=-10000000000.0 -3.0 -0.30000001192092896 0.0 9.999999717180685e-10 0.44999998807907104 1.0 100000.0" --expected_output="8xf32=-1.5707963705062866 -1.249045729637146 -0.29145681858062744 0.0 9.999999717180685e-10 0.42285391688346863 0.7853981852531433 1.5707863569259644" --expected_f32_threshold=3.14e-06
// RUN: strata-run --module=%t.vmfb --function=asinh_f32 --input="8xf32=-10000000000.0 -3.0 -0.30000001192092896 0.0 9.999999717180685e-10 0.44999998807907104 1.0 100000.0" --expected_output="8xf32=-23.718997955322266 -1.8184465169906616 -0.29567307233810425 0.0 9.999999717180685e-10 0.4360496699810028 0.8813735842704773 12.206072807312012" --expected_f32_threshold=4.74e-05
// RUN: strata-run --module=%t.vmfb --function=acosh_f32 --input="7xf32=1.0 1.0000001192092896 1.5 2.0 3.0 100.0 100000000.0" --expected_output="7xf32=0.0 0.00048828125 0.9624236226081848 1.316957950592041 1.7627471685409546 5.29829216003418 19.113828659057617" --expected_f32_threshold=3.82e-05
// RUN: strata-run --module=%t.vmfb --function=atanh_f32 --input="8xf32=-0.9990000128746033 -0.5 -9.999999717180685e-10 0.0 9.999999960041972e-13 0.30000001192092896 0.699999988079071 0.9900000095367432" --expected_output="8xf32=-3.8002076148986816 -0.5493061542510986 -9.999999717180685e-10 0.0 9.999999960041972e-13 0.30951961874961853 0.8673005104064941 2.646652936935425" --expected_f32_threshold=7.6e-06
// RUN: strata-run --module=%t.vmfb --function=erf_f32 --input="8xf32=-6.0 -2.5 -0.5 0.0 9.999999717180685e-10 1.0 1.9900000095367432 3.0" --expected_output="8xf32=-1.0 -0.9995930194854736 -0.5204998850822449 0.0 1.1283791678806665e-09 0.8427007794380188 0.9951114058494568 0.9999778866767883" --expected_f32_threshold=2e-06
// RUN: strata-run --module=%t.vmfb --function=erfc_f32 --input="7xf32=-6.0 -2.5 -0.5 0.0 9.999999717180685e-10 1.0 2.5" --expected_output="7xf32=2.0 1.9995930194854736 1.5204998254776 1.0 1.0 0.15729920566082 0.00040695202187635005" --expected_f32_threshold=4e-06
// RUN: strata-run --module=%t.vmfb --function=cbrt_f32 --input="6xf32=-27.0 -9.999999717180685e-10 0.0 2.0 1000.0 1.0000000200408773e+20" --expected_output="6xf32=-3.0 -0.0010000000474974513 0.0 1.2599210739135742 10.0 4641589.0" --expected_f32_threshold=9.28
// RUN: strata-run --module=%t.vmfb --function=exp_f16 --input="4xf16=-3.0 0.0 0.5 2.0" --expected_output="4xf16=0.049774169921875 1.0 1.6484375 7.390625" --expected_f16_threshold=0.0148
// RUN: strata-run --module=%t.vmfb --function=expm1_f16 --input="5xf16=-20.0 -0.39990234375 0.0 0.300048828125 0.60009765625" --expected_output="5xf16=-1.0 -0.32958984375 0.0 0.349853515625 0.822265625" --expected_f16_threshold=0.002
// RUN: strata-run --module=%t.vmfb --function=exp2_f16 --input="5xf16=-3.5 0.0 0.25 1.0 10.0" --expected_output="5xf16=0.08837890625 1.0 1.189453125 2.0 1024.0" --expected_f16_threshold=2.05
// RUN: strata-run --module=%t.vmfb --function=log_f16 --input="4xf16=0.5 1.0 1.0 2.0" --expected_output="4xf16=-0.693359375 0.0 0.0 0.693359375" --expected_f16_threshold=0.00139
// RUN: strata-run --module=%t.vmfb --function=log2_f16 --input="5xf16=0.125 0.7001953125 1.0 3.0 1024.0" --expected_output="5xf16=-3.0 -0.51416015625 0.0 1.5849609375 10.0" --expected_f16_threshold=0.02
// RUN: strata-run --module=%t.vmfb --function=log10_f16 --input="5xf16=0.5 1.0 2.0 1000.0 12344.0" --expected_output="5xf16=-0.301025390625 0.0 0.301025390625 3.0 4.08984375" --expected_f16_threshold=0.00818
// RUN: strata-run --module=%t.vmfb --function=log1p_f16 --input="5xf16=-0.9990234375 -0.5 0.0 0.39990234375 10.0" --expected_output="5xf16=-6.9296875 -0.693359375 0.0 0.33642578125 2.3984375" --expected_f16_threshold=0.0139
// RUN: strata-run --module=%t.vmfb --function=sin_f16 --input="7xf16=-10000.0 -3.0 0.0 0.7001953125 1.5703125 100.0 12344.0" --expected_output="7xf16=0.3056640625 -0.14111328125 0.0 0.64453125 1.0 -0.50634765625 -0.630859375" --expected_f16_threshold=0.002
// RUN: strata-run --module=%t.vmfb --function=cos_f16 --input="7xf16=-10000.0 -3.0 0.0 0.7001953125 1.5703125 100.0 12344.0" --expected_output="7xf16=-0.9521484375 -0.990234375 1.0 0.7646484375 0.0004837512969970703 0.8623046875 -0.77587890625" --expected_f16_threshold=0.002
// RUN: strata-run --module=%t.vmfb --function=tan_f16 --input="7xf16=-1000.0 -1.2001953125 0.0 0.5 1.0 1.5 123.0" --expected_output="7xf16=-1.470703125 -2.57421875 0.0 0.54638671875 1.5576171875 14.1015625 0.51806640625" --expected_f16_threshold=0.0282
// RUN: strata-run --module=%t.vmfb --function=sinh_f16 --input="4xf16=-2.0 0.0 0.5 5.0" --expected_output="4xf16=-3.626953125 0.0 0.52099609375 74.1875" --expected_f16_threshold=0.148
// RUN: strata-run --module=%t.vmfb --function=cosh_f16 --input="4xf16=-2.0 0.0 0.5 5.0" --expected_output="4xf16=3.76171875 1.0 1.1279296875 74.1875" --expected_f16_threshold=0.148
// RUN: strata-run --module=%t.vmfb --function=tanh_f16 --input="6xf16=-30.0 -2.0 0.0 0.5 5.0 19.0" --expected_output="6xf16=-1.0 -0.9638671875 0.0 0.462158203125 1.0 1.0" --expected_f16_threshold=0.002
// RUN: strata-run --module=%t.vmfb --function=asin_f16 --input="7xf16=-1.0 -0.89990234375 -0.300048828125 0.0 0.5 0.990234375 1.0" --expected_output="7xf16=-1.5703125 -1.119140625 -0.3046875 0.0 0.5234375 1.4306640625 1.5703125" --expected_f16_threshold=0.00314
// RUN: strata-run --module=%t.vmfb --function=acos_f16 --input="7xf16=-1.0 -0.89990234375 -0.300048828125 0.0 0.5 0.990234375 1.0" --expected_output="7xf16=3.140625 2.689453125 1.8759765625 1.5703125 1.046875 0.139892578125 0.0" --expected_f16_threshold=0.00628
// RUN: strata-run --module=%t.vmfb --function=atan_f16 --input="5xf16=-3.0 -0.300048828125 0.0 0.449951171875 1.0" --expected_output="5xf16=-1.2490234375 -0.29150390625 0.0 0.4228515625 0.78515625" --expected_f16_threshold=0.0025
// RUN: strata-run --module=%t.vmfb --function=asinh_f16 --input="5xf16=-3.0 -0.300048828125 0.0 0.449951171875 1.0" --expected_output="5xf16=-1.818359375 -0.295654296875 0.0 0.43603515625 0.88134765625" --expected_f16_threshold=0.00364
// RUN: strata-run --module=%t.vmfb --function=acosh_f16 --input="6xf16=1.0 1.0 1.5 2.0 3.0 100.0" --expected_output="6xf16=0.0 0.0 0.96240234375 1.3173828125 1.7626953125 5.296875" --expected_f16_threshold=0.0106
// RUN: strata-run --module=%t.vmfb --function=atanh_f16 --input="6xf16=-0.9990234375 -0.5 0.0 0.300048828125 0.7001953125 0.990234375" --expected_output="6xf16=-3.8125 -0.54931640625 0.0 0.3095703125 0.86767578125 2.658203125" --expected_f16_threshold=0.00762
// RUN: strata-run --module=%t.vmfb --function=erf_f16 --input="7xf16=-6.0 -2.5 -0.5 0.0 1.0 1.990234375 3.0" --expected_output="7xf16=-1.0 -0.99951171875 -0.5205078125 0.0 0.8427734375 0.9951171875 1.0" --expected_f16_threshold=0.002
// RUN: strata-run --module=%t.vmfb --function=erfc_f16 --input="6xf16=-6.0 -2.5 -0.5 0.0 1.0 2.5" --expected_output="6xf16=2.0 2.0 1.5205078125 1.0 0.1573486328125 0.0004069805145263672" --expected_f16_threshold=0.004
// RUN: strata-run --module=%t.vmfb --function=cbrt_f16 --input="4xf16=-27.0 0.0 2.0 1000.0" --expected_output="4xf16=-3.0 0.0 1.259765625 10.0" --expected_f16_threshold=0.02
//
// On local-sync too.
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=sincos --input="3xf32=0.5 -2 1000" --expected_output="3xf32=1.3570081 -1.3254443 1.3892586" --expected_f32_threshold=1e-6

func.func @exp_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.exp %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @expm1_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.expm1 %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @exp2_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.exp2 %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @log_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.log %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @log2_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.log2 %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @log10_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.log10 %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @log1p_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.log1p %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @sin_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.sin %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @cos_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.cos %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @tan_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.tan %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @sinh_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.sinh %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @cosh_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.cosh %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @tanh_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.tanh %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @asin_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.asin %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @acos_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.acos %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @atan_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.atan %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @asinh_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.asinh %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @acosh_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.acosh %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @atanh_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.atanh %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @erf_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.erf %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @erfc_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.erfc %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @cbrt_f64(%a: tensor<8xf64>) -> tensor<8xf64> {
  %r = math.cbrt %a : tensor<8xf64>
  return %r : tensor<8xf64>
}

func.func @exp_f32(%a: tensor<6xf32>) -> tensor<6xf32> {
  %r = math.exp %a : tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @expm1_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.expm1 %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @exp2_f32(%a: tensor<6xf32>) -> tensor<6xf32> {
  %r = math.exp2 %a : tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @log_f32(%a: tensor<6xf32>) -> tensor<6xf32> {
  %r = math.log %a : tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @log2_f32(%a: tensor<6xf32>) -> tensor<6xf32> {
  %r = math.log2 %a : tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @log10_f32(%a: tensor<6xf32>) -> tensor<6xf32> {
  %r = math.log10 %a : tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @log1p_f32(%a: tensor<7xf32>) -> tensor<7xf32> {
  %r = math.log1p %a : tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @sin_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.sin %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @cos_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.cos %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @tan_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.tan %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @sinh_f32(%a: tensor<7xf32>) -> tensor<7xf32> {
  %r = math.sinh %a : tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @cosh_f32(%a: tensor<7xf32>) -> tensor<7xf32> {
  %r = math.cosh %a : tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @tanh_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.tanh %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @asin_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.asin %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @acos_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.acos %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @atan_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.atan %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @asinh_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.asinh %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @acosh_f32(%a: tensor<7xf32>) -> tensor<7xf32> {
  %r = math.acosh %a : tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @atanh_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.atanh %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @erf_f32(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = math.erf %a : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @erfc_f32(%a: tensor<7xf32>) -> tensor<7xf32> {
  %r = math.erfc %a : tensor<7xf32>
  return %r : tensor<7xf32>
}

func.func @cbrt_f32(%a: tensor<6xf32>) -> tensor<6xf32> {
  %r = math.cbrt %a : tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @exp_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %r = math.exp %a : tensor<4xf16>
  return %r : tensor<4xf16>
}

func.func @expm1_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.expm1 %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @exp2_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.exp2 %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @log_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %r = math.log %a : tensor<4xf16>
  return %r : tensor<4xf16>
}

func.func @log2_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.log2 %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @log10_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.log10 %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @log1p_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.log1p %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @sin_f16(%a: tensor<7xf16>) -> tensor<7xf16> {
  %r = math.sin %a : tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @cos_f16(%a: tensor<7xf16>) -> tensor<7xf16> {
  %r = math.cos %a : tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @tan_f16(%a: tensor<7xf16>) -> tensor<7xf16> {
  %r = math.tan %a : tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @sinh_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %r = math.sinh %a : tensor<4xf16>
  return %r : tensor<4xf16>
}

func.func @cosh_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %r = math.cosh %a : tensor<4xf16>
  return %r : tensor<4xf16>
}

func.func @tanh_f16(%a: tensor<6xf16>) -> tensor<6xf16> {
  %r = math.tanh %a : tensor<6xf16>
  return %r : tensor<6xf16>
}

func.func @asin_f16(%a: tensor<7xf16>) -> tensor<7xf16> {
  %r = math.asin %a : tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @acos_f16(%a: tensor<7xf16>) -> tensor<7xf16> {
  %r = math.acos %a : tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @atan_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.atan %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @asinh_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %r = math.asinh %a : tensor<5xf16>
  return %r : tensor<5xf16>
}

func.func @acosh_f16(%a: tensor<6xf16>) -> tensor<6xf16> {
  %r = math.acosh %a : tensor<6xf16>
  return %r : tensor<6xf16>
}

func.func @atanh_f16(%a: tensor<6xf16>) -> tensor<6xf16> {
  %r = math.atanh %a : tensor<6xf16>
  return %r : tensor<6xf16>
}

func.func @erf_f16(%a: tensor<7xf16>) -> tensor<7xf16> {
  %r = math.erf %a : tensor<7xf16>
  return %r : tensor<7xf16>
}

func.func @erfc_f16(%a: tensor<6xf16>) -> tensor<6xf16> {
  %r = math.erfc %a : tensor<6xf16>
  return %r : tensor<6xf16>
}

func.func @cbrt_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %r = math.cbrt %a : tensor<4xf16>
  return %r : tensor<4xf16>
}

// math.sincos, split into its halves: sin + cos.
func.func @sincos(%a: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s, %c = math.sincos %x : f32
    %y = arith.addf %s, %c : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
