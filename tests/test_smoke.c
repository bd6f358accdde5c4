/* Start-position perft, the first check every build must pass. */
#include <criterion/criterion.h>

#include "baghchal.h"

Test(movegen, perft_start_depth_4)
{
    position_t p;
    position_set_start(&p);
    cr_assert_eq(perft(&p, 4), 68204);
}
