// oclgrind_quiet.cpp — build/liboclquiet.so: Oclgrind's diagnostics without the LLVM
// instruction each one prints.
//
// Every message Oclgrind sends (a data race, an invalid read, an uninitialised value) prints
// the offending LLVM instruction through oclgrind::dumpInstruction, and LLVM's printer first
// numbers every value and metadata node of the whole function (SlotTracker).  That is
// O(function size) per message: a register-blocked kernel with a race or an out-of-bounds
// access spent half its analysis there, and ran into the time limit (GUIDE.md, "Oclgrind's
// messages").  The tracer (trace_finding.c) reads a message's first line, its "At line"
// locations and its entities, never the instruction, so the analysis child loads this library
// with RTLD_GLOBAL before Oclgrind (check_an.c, analysis_env): liboclgrind calls
// dumpInstruction through its PLT, and the first definition in the global scope, this one,
// answers.  Where the interposition does not take (another Oclgrind), messages are only
// slower, never different in what the tracer reads.
#include <ostream>

namespace llvm { class Instruction; }

namespace oclgrind
{
void dumpInstruction(std::ostream& out, const llvm::Instruction* instruction)
{
  (void)instruction;
  out << "(instruction not printed)";
}
}
