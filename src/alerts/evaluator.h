// Evaluates the catalogue's "gpucost" rules at the end of an engine run, over what an AlertSink
// gathered, the usage timeline (for each node's newest sample) and, when given, the budgets
// file: firing alerts and the budget table (docs/alerts.md "How each rule is evaluated").
// Pure: no I/O, no clock.
#pragma once

#include "alerts/alert.h"
#include "alerts/alert_sink.h"
#include "alerts/budgets.h"
#include "model/holder.h"
#include "model/usage.h"

namespace gpucost::alerts {

// `budgets` may be null: no budget table and no budget rule.
AlertReport Evaluate(const AlertSink& sink, const Usage& usage, const BudgetFile* budgets);

}  // namespace gpucost::alerts
