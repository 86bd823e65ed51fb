// The aggregation expression language: importing this module registers every operator family.
import './ops-logic.js';
import './ops-arith.js';
import './ops-round.js';
import './ops-array.js';
import './ops-sets.js';
import './ops-string.js';
import './ops-regex.js';
import './ops-type.js';
import './ops-object.js';
import './ops-date.js';
import './ops-date-math.js';

export { type Ctx, type Expr, evalExpr, newCtx, newScope, parseExpr, parseFieldPath } from './core.js';
