/* libbaghchal: the public header that brings in the whole library. */
#ifndef BAGHCHAL_H
#define BAGHCHAL_H

#include "types.h"
#include "message.h"
#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "game.h"
#include "compat.h"
#include "eval.h"
#include "bitbase.h"
#include "tt.h"
#include "timeman.h"
#include "forbid.h"
#include "search.h"
#include "tbreport.h"
#include "engine.h"

#endif
