# expect: 73:72 too deeply nested
# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i0 in range(4):
         for i1 in range(4):
          for i2 in range(4):
           for i3 in range(4):
            for i4 in range(4):
             for i5 in range(4):
              for i6 in range(4):
               for i7 in range(4):
                for i8 in range(4):
                 for i9 in range(4):
                  for i10 in range(4):
                   for i11 in range(4):
                    for i12 in range(4):
                     for i13 in range(4):
                      for i14 in range(4):
                       for i15 in range(4):
                        for i16 in range(4):
                         for i17 in range(4):
                          for i18 in range(4):
                           for i19 in range(4):
                            for i20 in range(4):
                             for i21 in range(4):
                              for i22 in range(4):
                               for i23 in range(4):
                                for i24 in range(4):
                                 for i25 in range(4):
                                  for i26 in range(4):
                                   for i27 in range(4):
                                    for i28 in range(4):
                                     for i29 in range(4):
                                      for i30 in range(4):
                                       for i31 in range(4):
                                        for i32 in range(4):
                                         for i33 in range(4):
                                          for i34 in range(4):
                                           for i35 in range(4):
                                            for i36 in range(4):
                                             for i37 in range(4):
                                              for i38 in range(4):
                                               for i39 in range(4):
                                                for i40 in range(4):
                                                 for i41 in range(4):
                                                  for i42 in range(4):
                                                   for i43 in range(4):
                                                    for i44 in range(4):
                                                     for i45 in range(4):
                                                      for i46 in range(4):
                                                       for i47 in range(4):
                                                        for i48 in range(4):
                                                         for i49 in range(4):
                                                          for i50 in range(4):
                                                           for i51 in range(4):
                                                            for i52 in range(4):
                                                             for i53 in range(4):
                                                              for i54 in range(4):
                                                               for i55 in range(4):
                                                                for i56 in range(4):
                                                                 for i57 in range(4):
                                                                  for i58 in range(4):
                                                                   for i59 in range(4):
                                                                    for i60 in range(4):
                                                                     for i61 in range(4):
                                                                      for i62 in range(4):
                                                                       for i63 in range(4):
                                                                        for i64 in range(4):
                                                                         for i65 in range(4):
                                                                          for i66 in range(4):
                                                                           for i67 in range(4):
                                                                            for i68 in range(4):
                                                                             for i69 in range(4):
                                                                              A[i0] = T.float32(0)
