/* Work arrays too large for the stack are static, one copy per thread (KB_TLS), so that
   evaluations in different threads (an FMU's instances run in parallel) never share them. */
/* IEEE arithmetic is required: the non-finite checks (x != x, o * 0.0) vanish under
   -ffast-math, and a NaN would pass as a number. kanebond refuses such flags in Python too. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "kanebond's C must be built without -ffast-math / -ffinite-math-only (IEEE NaN checks)"
#endif
#if defined(_MSC_VER)
#define KB_TLS __declspec(thread)
#elif defined(__GNUC__) || defined(__clang__)
#define KB_TLS __thread
#else
#define KB_TLS _Thread_local
#endif
