/* Work arrays too large for the stack are static, one copy per thread (KB_TLS), so that
   evaluations in different threads (an FMU's instances run in parallel) never share them. */
#if defined(_MSC_VER)
#define KB_TLS __declspec(thread)
#elif defined(__GNUC__) || defined(__clang__)
#define KB_TLS __thread
#else
#define KB_TLS _Thread_local
#endif
