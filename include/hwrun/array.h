/* The number of elements of an array, for loops and _Static_assert over static tables. A
 * pointer in place of an array does not compile (GCC and clang), so the count cannot silently
 * become sizeof(pointer) / sizeof(element) after a refactoring. */
#ifndef HWRUN_ARRAY_H
#define HWRUN_ARRAY_H

#define HW_IS_ARRAY(a) (!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))
#define HW_ARRAY_SIZE(a)                                                                           \
    (sizeof(a) / sizeof((a)[0]) + 0 * sizeof(struct {                                              \
                                      _Static_assert(HW_IS_ARRAY(a), "not an array");              \
                                      int x;                                                       \
                                  }))

#endif
