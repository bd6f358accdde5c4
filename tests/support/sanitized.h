/* What the suites know of the build they run in: SANITIZED under AddressSanitizer or
 * ThreadSanitizer (the programs they drive run 2-15 times slower there), and UNDER_TSAN (0 or 1)
 * under ThreadSanitizer alone, whose build is there for the threads: a test of files, values or
 * refusals that starts no thread beyond what other tests start is disabled there with
 * `.disabled = UNDER_TSAN` (it runs in the release and AddressSanitizer builds). */
#ifndef BAGHCHAL_TESTS_SANITIZED_H
#define BAGHCHAL_TESTS_SANITIZED_H

#if defined(__SANITIZE_THREAD__) || defined(BAGHCHAL_TSAN_BUILD)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#if UNDER_TSAN || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#endif
