// cltrace.cpp — the Oclgrind plugin of clgrade: a thin adapter from Oclgrind's C++ plugin
// API to the C analysis in ../trace.c.
//
// Oclgrind only offers a C++ interface, but the course keeps its logic in C so that Check
// can test it.  This file therefore only translates: for every __local and __global access
// of the kernel it finds the work-group (linearised here: WorkGroup::getGroupIndex() is
// wrong for 2-D/3-D ranges in 21.10), the linear local id, the instruction and its source
// line:column (ircode.cpp), and passes them on; it names the variables (kernel-scope __local
// variables and __local arguments from the work-group's local allocations, __global/__constant
// buffers from the kernel's argument values), hands the kernel's code to irmlp.c (ircode.cpp)
// counts the floating-point work of the model's launches (ircode.cpp, flopsOf) and forwards
// every Oclgrind diagnostic.  trace.c rebuilds warps, prices them and writes the
// JSON summary ($CLTRACE_OUT).
//
// Build (the Makefile does this; -fno-rtti is required: liboclgrind has no RTTI):
//   g++ -O2 -fPIC -shared $(llvm-config-14 --cxxflags) -std=c++17 -fno-rtti -fexceptions
//       -Igrader -o build/libcltrace.so grader/tracer/*.cpp trace*.o bank.o irmlp.o
//       -loclgrind -lLLVM-14 -lcjson
// Use: OCLGRIND_PLUGINS=build/libcltrace.so CLTRACE_OUT=out.json <host on Oclgrind>
//
// Thread-safe: Oclgrind runs whole work-groups on its worker threads; trace.c keeps
// per-thread state for the groups, so only the one-time naming of __local variables is
// serialised here (race detection doubles Oclgrind's cost: the threads are worth having).

// Oclgrind's headers lack include guards (but Plugin.h, Queue.h, common.h): include each once.
#include <oclgrind/Plugin.h>
#include <oclgrind/Context.h>
#include <oclgrind/Kernel.h>
#include <oclgrind/KernelInvocation.h>
#include <oclgrind/Memory.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Value.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

extern "C" {
#include "trace.h"
}
#include "ircode.h"

using namespace oclgrind;

namespace
{

class CLTrace : public Plugin
{
public:
  explicit CLTrace(const Context* context) : Plugin(context), m_trace(trace_new()) {}
  ~CLTrace() override;

  bool isThreadSafe() const override { return true; }
  void kernelBegin(const KernelInvocation* ki) override;
  void kernelEnd(const KernelInvocation*) override;
  void workGroupBegin(const WorkGroup* wg) override;
  void workGroupBarrier(const WorkGroup*, uint32_t) override { trace_barrier(m_trace); }
  void workGroupComplete(const WorkGroup*) override { trace_group_end(m_trace); }

  void memoryLoad(const Memory* m, const WorkItem* wi, size_t address, size_t size) override
  {
    record(m, wi, address, size, TRACE_LOAD);
  }
  void memoryStore(const Memory* m, const WorkItem* wi, size_t address, size_t size,
                   const uint8_t*) override
  {
    record(m, wi, address, size, TRACE_STORE);
  }
  void memoryAtomicLoad(const Memory* m, const WorkItem* wi, AtomicOp, size_t address,
                        size_t size) override
  {
    record(m, wi, address, size, TRACE_ATOMIC);
  }
  void memoryAtomicStore(const Memory* m, const WorkItem* wi, AtomicOp, size_t address,
                         size_t size) override
  {
    record(m, wi, address, size, TRACE_ATOMIC_STORE);
  }
  // async_work_group_copy, performed by the group at its wait: bytes only.
  void memoryLoad(const Memory* m, const WorkGroup*, size_t, size_t size) override;
  void memoryStore(const Memory* m, const WorkGroup*, size_t, size_t size,
                   const uint8_t*) override;

  // Floating-point work, in the model's launches only (no extent given): trace_flops.
  void instructionExecuted(const WorkItem* wi, const llvm::Instruction* inst,
                           const TypedValue&) override
  {
    if (!m_countFlops)
      return;
    // a call's operations were read from its callee's name once, in countedCode()
    int pipe;
    uint32_t f = 0;
    if (inst->getOpcode() == llvm::Instruction::Call)
    {
      auto it = m_callFlops.find(inst);
      f = it == m_callFlops.end() ? 0 : it->second;
    }
    else
      f = cltrace::flopsOf(inst, &pipe);
    if (f)
    {
      const Size3& id = wi->getLocalID();
      trace_flops(m_trace, inst, f, (uint32_t)(id.x + m_local.x * (id.y + m_local.y * id.z)));
    }
  }

  void log(MessageType type, const char* message) override
  {
    trace_message(m_trace, (trace_msg_type)type, message);
  }

private:
  trace* m_trace;
  const Kernel* m_kernel = nullptr;
  Size3 m_local, m_groups;
  std::mutex m_localsLock;
  bool m_localsNamed = false;
  bool m_countFlops = false;
  std::unordered_set<const llvm::Instruction*> m_localMemory;   // read-only while groups run
  std::unordered_map<const llvm::Instruction*, uint32_t> m_callFlops;   // likewise

  void addGlobalVariables();
  void addLocalVariables(const WorkGroup* wg);
  void countedCode(const llvm::Function* f);
  uint32_t groupIndex(const WorkGroup* wg) const;
  void record(const Memory* m, const WorkItem* wi, size_t address, size_t size,
              trace_kind kind);
};

unsigned addressSpaceOf(const llvm::Value* v)
{
  const llvm::Type* t = v->getType();
  return t->isPointerTy() ? t->getPointerAddressSpace() : AddrSpacePrivate;
}

CLTrace::~CLTrace()
{
  trace_finish(m_trace);
  trace_free(m_trace);
}

void CLTrace::kernelBegin(const KernelInvocation* ki)
{
  m_kernel = ki->getKernel();
  m_local = ki->getLocalSize();
  m_groups = ki->getNumGroups();
  size_t local[3] = {m_local.x, m_local.y, m_local.z};
  size_t groups[3] = {m_groups.x, m_groups.y, m_groups.z};
  trace_kernel_begin(m_trace, m_kernel->getName().c_str(), local, groups);
  // The grader names the problem's extent: only groups wholly inside it are priced.
  unsigned long long ex = 0, ey = 0;
  const char* e = getenv("CLTRACE_EXTENT");
  if (e && sscanf(e, "%llu %llu", &ex, &ey) == 2)
    trace_interior(m_trace, ex, ey);
  // the analysed launches name an extent; the model's do not, and only they are priced
  m_countFlops = e == nullptr;
  addGlobalVariables();
  cltrace::walkCode(trace_code(m_trace), m_kernel->getFunction());
  m_localMemory.clear();
  m_callFlops.clear();
  if (m_countFlops)
    countedCode(m_kernel->getFunction());
  m_localsNamed = false;
}

// The model's launches: the private arrays in local memory and what puts them there, and
// every arithmetic instruction and private access named with its line (trace_arith.c); a
// call's operations kept for instructionExecuted.
void CLTrace::countedCode(const llvm::Function* f)
{
  uint64_t bytes = 0;
  const llvm::Instruction* cause = nullptr;
  int line = 0, column = 0, merged = 0;
  cltrace::localMemoryAccesses(f, &m_localMemory, &bytes, &cause);
  if (cause)
    cltrace::sourceLine(cause, &line, &column, &merged);
  trace_private_bytes(m_trace, bytes, line, column);
  for (const llvm::BasicBlock& bb : *f)
    for (const llvm::Instruction& inst : bb)
    {
      int pipe = 0;
      uint32_t ops = cltrace::flopsOf(&inst, &pipe);
      if (ops && inst.getOpcode() == llvm::Instruction::Call)
        m_callFlops[&inst] = ops;
      if (ops || m_localMemory.count(&inst))
      {
        line = column = merged = 0;
        cltrace::sourceLine(&inst, &line, &column, &merged);
        trace_arith_site(m_trace, &inst, line, column, pipe);
      }
    }
}

void CLTrace::kernelEnd(const KernelInvocation*)
{
  trace_kernel_end(m_trace);
  m_kernel = nullptr;
}

void CLTrace::workGroupBegin(const WorkGroup* wg)
{
  // Every group allocates the same __local variables in the same order into
  // a fresh local Memory, so their addresses are named once per run, before
  // any group (on any thread) goes on to access them.
  {
    std::lock_guard<std::mutex> lock(m_localsLock);
    if (!m_localsNamed)
      addLocalVariables(wg);
  }
  trace_group_begin(m_trace, groupIndex(wg));
}

void CLTrace::memoryLoad(const Memory* m, const WorkGroup*, size_t, size_t size)
{
  if (m->getAddressSpace() == AddrSpaceGlobal)
    trace_copy_bytes(m_trace, TRACE_GLOBAL, 0, size);
}

void CLTrace::memoryStore(const Memory* m, const WorkGroup*, size_t, size_t size,
                          const uint8_t*)
{
  if (m->getAddressSpace() == AddrSpaceGlobal)
    trace_copy_bytes(m_trace, TRACE_GLOBAL, 1, size);
}

// __global and __constant buffers: the kernel's pointer arguments (and
// program-scope variables), whose values are addresses in global memory.
void CLTrace::addGlobalVariables()
{
  const Memory* global = m_context->getGlobalMemory();
  for (auto it = m_kernel->values_begin(); it != m_kernel->values_end(); ++it)
  {
    unsigned as = addressSpaceOf(it->first);
    const TypedValue& tv = it->second;
    if ((as != AddrSpaceGlobal && as != AddrSpaceConstant) || !tv.data ||
        tv.size != sizeof(size_t))
      continue;
    size_t address = tv.getPointer();
    const Memory::Buffer* b = global->getBuffer(address);
    size_t offset = global->extractOffset(address);
    size_t bytes = b && b->size > offset ? b->size - offset : 0;
    trace_variable(m_trace, TRACE_GLOBAL, it->first->getName().str().c_str(),
                   address, bytes);
  }
}

// __local: kernel-scope variables ("kernel.var") and __local arguments.
void CLTrace::addLocalVariables(const WorkGroup* wg)
{
  m_localsNamed = true;
  for (auto it = m_kernel->values_begin(); it != m_kernel->values_end(); ++it)
  {
    if (addressSpaceOf(it->first) != AddrSpaceLocal)
      continue;
    trace_variable(m_trace, TRACE_LOCAL, it->first->getName().str().c_str(),
                   wg->getLocalMemoryAddress(it->first), it->second.size);
  }
}

uint32_t CLTrace::groupIndex(const WorkGroup* wg) const
{
  Size3 g = wg->getGroupID();
  return (uint32_t)(g.x + m_groups.x * (g.y + m_groups.y * g.z));
}

void CLTrace::record(const Memory* m, const WorkItem* wi, size_t address, size_t size,
                     trace_kind kind)
{
  unsigned as = m->getAddressSpace();
  const llvm::Instruction* inst = wi->getCurrentInstruction();
  if (as == AddrSpacePrivate && m_countFlops && inst && m_localMemory.count(inst))
  {
    trace_private(m_trace, inst, (uint32_t)size);
    return;
  }
  if ((as != AddrSpaceLocal && as != AddrSpaceGlobal) || !m_kernel)
    return;
  trace_access a;
  a.site = inst;
  a.line = a.column = a.merged = 0;
  if (inst)
    cltrace::sourceLine(inst, &a.line, &a.column, &a.merged);
  a.space = as == AddrSpaceLocal ? TRACE_LOCAL : TRACE_GLOBAL;
  a.kind = kind;
  a.address = address;
  a.size = (uint32_t)size;
  Size3 l = wi->getLocalID();
  a.lane = (uint32_t)(l.x + m_local.x * (l.y + m_local.y * l.z));
  trace_record(m_trace, &a);
}

CLTrace* g_plugin = nullptr;

} // namespace

extern "C" void initializePlugins(Context* context)
{
  g_plugin = new CLTrace(context);
  context->registerPlugin(g_plugin);
}

extern "C" void releasePlugins(Context* context)
{
  context->unregisterPlugin(g_plugin);
  delete g_plugin;
  g_plugin = nullptr;
}
