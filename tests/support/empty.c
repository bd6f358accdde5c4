/* Keeps the support library non-empty before any helper exists. */
typedef int baghchal_test_support_empty;
