// Slurm hostlist expressions ("gpu[01-04,07]", "cpn-k07-05-[01-02]", "a[1-2]b[3-4]",
// "n1,gpu[2-3]") expanded into node names, in the order Slurm prints them. Stateless and
// thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::slurm {

// Expands a hostlist. Ranges keep the zero padding of their lower bound ("01-04" -> 01..04);
// several bracket groups in one name multiply ("a[1-2]b[3-4]" -> a1b3 a1b4 a2b3 a2b4). Commas
// split names only outside brackets. "" and "None assigned" (pending jobs) expand to nothing.
// Errors (unbalanced brackets, bad ranges, more than `max_hosts` names) name the offending text.
Result<std::vector<std::string>> ExpandHostList(std::string_view text, size_t max_hosts = 100000);

}  // namespace gpucost::slurm
