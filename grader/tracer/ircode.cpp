// ircode.cpp — the kernel's LLVM IR as the Oclgrind plugin passes it on (see ircode.h): the
// code walked block by block into irmlp.c's loads-in-flight model, and an access's source
// line from its debug location.
#include <oclgrind/common.h>

#include <llvm/IR/BasicBlock.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Value.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Support/Casting.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <map>
#include <set>
#include <vector>

#include "ircode.h"

using namespace oclgrind;

namespace
{

// The condition on which bb runs, or null: bb's one predecessor is prev, the block laid out
// just before it, in the same loop, which branches on that condition (or switches on that
// value) to bb or elsewhere: the body of a short `if` (its other target is where the body
// rejoins) or a copy of an unrolled loop's body (its other target is the loop's exit).  A GPU
// compiler predicates such code (CUDA C Programming Guide, "Branch predication"), so bb's
// loads issue with prev's (irmlp.h, IRMLP_BLOCK_IF).
const void* guarded(const llvm::BasicBlock* prev, const llvm::BasicBlock* bb,
                    const llvm::LoopInfo& li)
{
  if (!prev || bb->getSinglePredecessor() != prev)
    return nullptr;
  // a loop's exit is no `if` body: the loop's turns are over before it runs
  // (tests/fixtures/l5_exit_block_loads.cl)
  if (li.getLoopFor(prev) != li.getLoopFor(bb))
    return nullptr;
  const llvm::Instruction* t = prev->getTerminator();
  if (const llvm::BranchInst* br = llvm::dyn_cast<llvm::BranchInst>(t))
    return br->isConditional() ? br->getCondition() : nullptr;
  // a switch's case: entered on the switch's value (tests/attacks4/l5_switch_chain.cl)
  if (const llvm::SwitchInst* sw = llvm::dyn_cast<llvm::SwitchInst>(t))
    return sw->getCondition();
  return nullptr;
}

// Does bb rejoin the short `if` whose body, ifBody, is laid out just before it: its two
// predecessors that body and the body's head, the body going on to bb alone?
bool rejoins(const llvm::BasicBlock* ifBody, const llvm::BasicBlock* bb)
{
  if (!ifBody || ifBody->getSingleSuccessor() != bb || !bb->hasNPredecessors(2))
    return false;
  const llvm::BasicBlock* head = ifBody->getSinglePredecessor();
  for (const llvm::BasicBlock* p : llvm::predecessors(bb))
    if (p != ifBody && p != head)
      return false;
  return true;
}

// May the call touch memory or synchronise?  Oclgrind declares OpenCL's builtins without
// attributes (and clang marks them all convergent), so a builtin with no pointer among its
// arguments (fma, sqrt, get_global_id, convert_float) touches nothing, unless its name says
// it synchronises or prints; an LLVM intrinsic says so itself.
bool touchesMemory(const llvm::CallBase* c)
{
  const llvm::Function* f = c->getCalledFunction();
  if (!f)
    return true;
  if (f->isIntrinsic())
    return c->mayReadOrWriteMemory() || c->isConvergent();
  // clang marks every OpenCL function convergent (any might hold a barrier): the name says
  llvm::StringRef n = f->getName();
  if (n.contains("barrier") || n.contains("fence") || n.contains("work_group") ||
      n.contains("sub_group") || n.contains("printf") || n.contains("atom"))
    return true;
  if (!f->isDeclaration())
    return true;   // a function of the kernel's own, not inlined: what it does is not read here
  for (const llvm::Use& a : c->args())
    if (a->getType()->isPointerTy())
      return true;
  return false;
}

irmlp_op codeOp(const llvm::Instruction& inst)
{
  if (const llvm::LoadInst* l = llvm::dyn_cast<llvm::LoadInst>(&inst))
  {
    unsigned as = l->getPointerAddressSpace();
    return as == AddrSpaceGlobal || as == AddrSpaceConstant ? IRMLP_LOAD : IRMLP_OTHER;
  }
  if (const llvm::StoreInst* st = llvm::dyn_cast<llvm::StoreInst>(&inst))
    return st->getPointerAddressSpace() == AddrSpaceGlobal ? IRMLP_FENCE : IRMLP_OTHER;
  if (llvm::isa<llvm::DbgInfoIntrinsic>(&inst))
    return IRMLP_OTHER;
  // a call that touches no memory and synchronises nothing (get_global_id, fma, sqrt) is
  // arithmetic; a barrier, an atomic, a vload or an unknown function is a fence
  // (tests/attacks4/l5_fmuladd_scaled.cl: `a += x * w` calls llvm.fmuladd)
  if (const llvm::CallBase* c = llvm::dyn_cast<llvm::CallBase>(&inst))
    return touchesMemory(c) ? IRMLP_FENCE : IRMLP_OTHER;
  return IRMLP_OTHER;
}

// A loop a GPU's compiler unrolls whole: at most this many turns, fixed at compile time.
const int kUnrollTurns = 16;

// The turns of loop l when they are a constant (`for (k = 0; k < 4; k++)`: its header's
// integer phi starts at a constant, steps by one, and the exit test compares it, or its next
// value, with a constant), else 0.  Only the forms clang emits for such loops.
int constantTurns(const llvm::Loop* l, int cap = kUnrollTurns)
{
  const llvm::BasicBlock* exiting = l->getExitingBlock();
  const llvm::BranchInst* br =
      exiting ? llvm::dyn_cast<llvm::BranchInst>(exiting->getTerminator()) : nullptr;
  const llvm::ICmpInst* cmp =
      br && br->isConditional() ? llvm::dyn_cast<llvm::ICmpInst>(br->getCondition()) : nullptr;
  const llvm::ConstantInt* bound =
      cmp ? llvm::dyn_cast<llvm::ConstantInt>(cmp->getOperand(1)) : nullptr;
  if (!bound)
    return 0;
  for (const llvm::PHINode& phi : l->getHeader()->phis())
  {
    if (phi.getNumIncomingValues() != 2 || !phi.getType()->isIntegerTy())
      continue;
    const llvm::ConstantInt* start = nullptr;
    const llvm::BinaryOperator* next = nullptr;
    for (unsigned i = 0; i < 2; i++)
      if (l->contains(phi.getIncomingBlock(i)))
        next = llvm::dyn_cast<llvm::BinaryOperator>(phi.getIncomingValue(i));
      else
        start = llvm::dyn_cast<llvm::ConstantInt>(phi.getIncomingValue(i));
    const llvm::ConstantInt* step =
        next && next->getOpcode() == llvm::Instruction::Add && next->getOperand(0) == &phi
            ? llvm::dyn_cast<llvm::ConstantInt>(next->getOperand(1)) : nullptr;
    if (!start || !step || (cmp->getOperand(0) != &phi && cmp->getOperand(0) != next))
      continue;
    // run the test as the loop does: the turns while it stays in the loop
    bool stayOnTrue = l->contains(br->getSuccessor(0));
    long long v = start->getSExtValue(), b = bound->getSExtValue(), d = step->getSExtValue();
    int turns = 0;
    for (; turns <= cap; turns++, v += d)
    {
      long long tested = cmp->getOperand(0) == next ? v + d : v;
      llvm::APInt ta(64, (uint64_t)tested, true), ba(64, (uint64_t)b, true);
      bool r = llvm::ICmpInst::compare(ta, ba, cmp->getPredicate());
      if (r != stayOnTrue)
        break;
    }
    // a test after the body (a rotated loop) runs the body once more than it stays
    if (cmp->getOperand(0) == next || exiting != l->getHeader())
      turns++;
    return turns >= 2 && turns <= cap ? turns : 0;
  }
  return 0;
}

// Every variable p may point into, through selects and phis (`l >= 0 ? s : t`: both), onto
// *out (tests/attacks4/l5_chain_local_alias.cl).
void objectsOf(const llvm::Value* p, std::vector<const void*>* out)
{
  llvm::SmallVector<const llvm::Value*, 4> objs;
  llvm::getUnderlyingObjects(p, objs);
  for (const llvm::Value* o : objs)
    out->push_back(o);
}

bool globalLoad(const llvm::Instruction& i)
{
  return codeOp(i) == IRMLP_LOAD;
}

// What depends, within loop l, on the values in dep: dep grown in place through the loop's
// instructions and through the private or __local variables it stores them in (a variable
// joins dep when a value of dep is stored into it; what is read from it depends on it).
// __global loads are not grown through: they are what the question is about.
void dependents(const llvm::Loop* l, std::set<const llvm::Value*>* dep)
{
  for (bool grew = true; grew;)
  {
    grew = false;
    for (const llvm::BasicBlock* bb : l->blocks())
      for (const llvm::Instruction& i : *bb)
      {
        std::vector<const void*> to, from;
        bool d = false;
        if (const llvm::StoreInst* st = llvm::dyn_cast<llvm::StoreInst>(&i))
        {
          objectsOf(st->getPointerOperand(), &to);
          d = dep->count(st->getValueOperand());
        }
        else
        {
          to.push_back(&i);
          for (const llvm::Use& u : i.operands())
            d = d || dep->count(u.get());
          if (const llvm::LoadInst* ld = llvm::dyn_cast<llvm::LoadInst>(&i))
            objectsOf(ld->getPointerOperand(), &from);
          for (const void* o : from)
            d = d || dep->count(static_cast<const llvm::Value*>(o));
        }
        if (d && !globalLoad(i))
          for (const void* o : to)
            if (dep->insert(static_cast<const llvm::Value*>(o)).second)
              grew = true;
      }
  }
}

// Does a __global load of loop l need, from one turn to the next, what another of its loads
// returned: its address, or a condition it is reached on, reads a value handed from one turn
// to the next (a phi of the loop's head, or a private or __local variable) that depends on
// one of them?  Then its turns wait for each other, unrolled or not.  A load that needs
// another of the same turn only (`y = in[(int)x]`, x loaded just before) leaves the turns
// free to overlap (tests/attacks4/l5_four_short_chains.cl).
bool chained(const llvm::Loop* l, const llvm::LoopInfo& li)
{
  std::set<const llvm::Value*> dep, carried;
  for (const llvm::BasicBlock* bb : l->blocks())
    for (const llvm::Instruction& i : *bb)
      if (globalLoad(i))
        dep.insert(&i);
  dependents(l, &dep);
  // what a turn hands the next: the head's phis and the variables, where they depend on a load
  for (const llvm::PHINode& phi : l->getHeader()->phis())
    if (dep.count(&phi))
      carried.insert(&phi);
  for (const llvm::Value* v : dep)
    if (!llvm::isa<llvm::Instruction>(v) || llvm::isa<llvm::AllocaInst>(v))
      carried.insert(v);
  dependents(l, &carried);
  for (const llvm::BasicBlock* bb : l->blocks())
    for (const llvm::Instruction& i : *bb)
    {
      if (!globalLoad(i))
        continue;
      for (const llvm::Use& u : i.operands())
        if (carried.count(u.get()))
          return true;
      // the conditions it is reached on within the turn (`if (x > 0 && i < n)`: two blocks)
      for (const llvm::BasicBlock* b = bb; b != l->getHeader();)
      {
        const llvm::BasicBlock* from = b->getSinglePredecessor();
        if (!from || !l->contains(from))
          break;
        const void* cond = guarded(from, b, li);
        if (cond && carried.count(static_cast<const llvm::Value*>(cond)))
          return true;
        b = from;
      }
    }
  return false;
}

// A loop a GPU's compiler unrolls at run time (LLVM's runtime unrolling, which NVIDIA's
// OpenCL compiler applies): LLVM's own choice of copies (LoopUnrollPass, computeUnrollCount):
// 8, halved while the unrolled body, (size - 2) * copies + 2 instructions, is over the
// partial-unroll threshold, which NVPTX sets to a quarter of the default 150
// (NVPTXTargetTransformInfo, getUnrollingPreferences); 0 below 2 copies.  The size here is the
// IR's instruction count, where LLVM weighs each by its cost: an approximation.
const int kRuntimeUnrollMax = 8, kRuntimeUnrollThreshold = 150 / 4;

int runtimeCopies(int size)
{
  int c = kRuntimeUnrollMax;
  while (c > 1 && (size - 2) * c + 2 > kRuntimeUnrollThreshold)
    c >>= 1;
  return c >= 2 ? c : 0;
}

// Is s above zero whatever the launch: a positive constant, a work-size query
// (get_global_size, get_local_size, get_num_groups), a product of those, or one cut or
// widened (`const int g = get_global_size(0)`).  A GPU's compiler knows these ranges
// (NVIDIA's from its special registers), Oclgrind's IR does not.
bool positiveSize(const llvm::SCEV* s)
{
  if (const llvm::SCEVConstant* c = llvm::dyn_cast<llvm::SCEVConstant>(s))
    return c->getAPInt().isStrictlyPositive();
  if (const llvm::SCEVCastExpr* c = llvm::dyn_cast<llvm::SCEVCastExpr>(s))
    return positiveSize(c->getOperand());
  if (const llvm::SCEVMulExpr* m = llvm::dyn_cast<llvm::SCEVMulExpr>(s))
  {
    for (const llvm::SCEV* o : m->operands())
      if (!positiveSize(o))
        return false;
    return true;
  }
  const llvm::SCEVUnknown* u = llvm::dyn_cast<llvm::SCEVUnknown>(s);
  const llvm::CallInst* call = u ? llvm::dyn_cast<llvm::CallInst>(u->getValue()) : nullptr;
  const llvm::Function* f = call ? call->getCalledFunction() : nullptr;
  if (!f)
    return false;
  llvm::StringRef n = f->getName();
  return n.contains("get_global_size") || n.contains("get_local_size") ||
         n.contains("get_num_groups") || n.contains("get_enqueued_local_size");
}

// Is l a loop whose exit compares a counter that steps by a positive size and cannot wrap
// (signed, `add nsw`) with a bound fixed before it starts: the grid-stride loop
// `for (int i = gid; i < n; i += g)`, whose trip count a GPU's compiler can compute where
// ScalarEvolution, not knowing g > 0, cannot.
bool strideCounted(const llvm::Loop* l, llvm::ScalarEvolution* se)
{
  const llvm::BranchInst* br =
      llvm::dyn_cast<llvm::BranchInst>(l->getExitingBlock()->getTerminator());
  const llvm::ICmpInst* cmp =
      br && br->isConditional() ? llvm::dyn_cast<llvm::ICmpInst>(br->getCondition()) : nullptr;
  for (unsigned k = 0; cmp && k < 2; k++)
  {
    const llvm::Value* v = cmp->getOperand(k);
    const llvm::SCEVAddRecExpr* ar =
        llvm::dyn_cast<llvm::SCEVAddRecExpr>(se->getSCEV(const_cast<llvm::Value*>(v)));
    // the step's own `add nsw` (ScalarEvolution keeps it on the counter, not on its next
    // value, which a do-while compares)
    const llvm::PHINode* phi = llvm::dyn_cast<llvm::PHINode>(v);
    const llvm::BinaryOperator* step = llvm::dyn_cast<llvm::BinaryOperator>(
        phi && l->getLoopLatch() ? phi->getIncomingValueForBlock(l->getLoopLatch()) : v);
    bool nsw = (ar && ar->hasNoSignedWrap()) ||
               (step && step->getOpcode() == llvm::Instruction::Add && step->hasNoSignedWrap());
    if (ar && ar->getLoop() == l && ar->isAffine() && nsw &&
        se->isLoopInvariant(se->getSCEV(cmp->getOperand(1 - k)), l) &&
        positiveSize(ar->getStepRecurrence(*se)))
      return true;
  }
  return false;
}

// How many copies of loop l's body a GPU's compiler makes at run time (runtimeCopies), 0 for
// none: an innermost loop with no barrier, atomic or unknown call (convergent code forbids a
// remainder loop), whose trip count is not a constant but can be computed before it starts
// (ScalarEvolution, or strideCounted).  On the H200 a one-load grid-stride loop runs 1.65x the
// baseline when its stride is an int (`i += g`, g an int: signed overflow is undefined, so the
// count is known) and 1.00x when it is a size_t cut to int or a uint, which may wrap; with
// three more (never taken) guarded loads, 40 instructions, 1.22x: not unrolled, here 1.00x
// (tests/gpu/results/stride-h200-*.txt, attacks4-h200-*.txt: l5_dead_guarded_loads).
int runtimeUnrolled(const llvm::Loop* l, llvm::ScalarEvolution* se)
{
  // `#pragma unroll 1` or `#pragma nounroll` (llvm.loop.unroll.disable): the student said no
  if (!l->getSubLoops().empty() || !l->getExitingBlock() || !l->getLoopLatch() ||
      (llvm::hasUnrollTransformation(l) & llvm::TM_Disable))
    return 0;
  int size = 0;
  for (const llvm::BasicBlock* bb : l->blocks())
    for (const llvm::Instruction& i : *bb)
    {
      if (llvm::isa<llvm::DbgInfoIntrinsic>(&i))
        continue;
      if (const llvm::CallBase* c = llvm::dyn_cast<llvm::CallBase>(&i))
        if (touchesMemory(c))
          return 0;
      size++;
    }
  int copies = runtimeCopies(size);
  if (!copies)
    return 0;
  const llvm::SCEV* n = se->getBackedgeTakenCount(l);
  if (llvm::isa<llvm::SCEVCouldNotCompute>(n))
    return strideCounted(l, se) ? copies : 0;
  return llvm::isa<llvm::SCEVConstant>(n) ? 0 : copies;
}

// What each loop's turns count, once per loop: its constant turns when a GPU's compiler
// unrolls it whole, its copies when it unrolls it at run time, in both cases when the
// turns do not wait for each other, 1 when they do (chained), 0 when it is not unrolled.
typedef std::map<const llvm::Loop*, int> LoopTurns;

int loopTurns(const llvm::Loop* l, const llvm::LoopInfo& li, llvm::ScalarEvolution* se,
              LoopTurns* memo)
{
  auto it = memo->find(l);
  if (it != memo->end())
    return it->second;
  int t = constantTurns(l);
  if (!t)
    t = runtimeUnrolled(l, se);
  if (t && chained(l, li))
    t = 1;
  return (*memo)[l] = t;
}

// What bb's loads count (irmlp_times): the product of the turns of the loops around it that a
// GPU's compiler unrolls, from the innermost out to the first one it does not (a chained one
// counts 1: its turns wait for each other, but the loops around it may still overlap theirs,
// tests/attacks4/l5_four_short_chains.cl); 1 outside them.
int unrolledTimes(const llvm::LoopInfo& li, llvm::ScalarEvolution* se, const llvm::BasicBlock* bb,
                  LoopTurns* memo)
{
  int times = 1;
  for (const llvm::Loop* l = li.getLoopFor(bb); l; l = l->getParentLoop())
  {
    int t = loopTurns(l, li, se, memo);
    if (!t || times * t > kUnrollTurns * 4)
      break;
    times *= t;
  }
  return times;
}

bool lineOf(const llvm::Instruction* i, int* line, int* column)
{
  const llvm::DILocation* loc = i ? i->getDebugLoc().get() : nullptr;
  if (!loc || loc->getLine() == 0)
    return false;
  *line = (int)loc->getLine();
  *column = (int)loc->getColumn();
  return true;
}

// Is v known when the code is compiled, once the loops a GPU's compiler unrolls whole are
// unrolled: a constant, a counter of such a loop, or arithmetic of those?
bool staticIndex(const llvm::Value* v, const llvm::LoopInfo& li, int depth,
                 int cap = kUnrollTurns)
{
  if (llvm::isa<llvm::Constant>(v))
    return true;
  if (depth > 8)
    return false;
  if (const llvm::PHINode* phi = llvm::dyn_cast<llvm::PHINode>(v))
  {
    const llvm::Loop* l = li.getLoopFor(phi->getParent());
    return l && l->getHeader() == phi->getParent() && constantTurns(l, cap) > 0;
  }
  if (const llvm::Instruction* i = llvm::dyn_cast<llvm::Instruction>(v))
  {
    if (!llvm::isa<llvm::BinaryOperator>(i) && !llvm::isa<llvm::CastInst>(i))
      return false;
    for (const llvm::Use& u : i->operands())
      if (!staticIndex(u.get(), li, depth + 1, cap))
        return false;
    return true;
  }
  return false;
}

// The access named as what puts a private array in local memory: the first whose index is
// known only at run time, else the first whose index is a counter of a loop too long to
// unroll (known at compile time, but not unrolled).
struct Cause
{
  const llvm::Instruction* inst = nullptr;
  bool runTime = false;   // inst's index is known only at run time
};

// The first load or store through g.
const llvm::Instruction* accessThrough(const llvm::GetElementPtrInst* g)
{
  for (const llvm::User* u : g->users())
    if (llvm::isa<llvm::LoadInst>(u) || llvm::isa<llvm::StoreInst>(u))
      return llvm::cast<llvm::Instruction>(u);
  return nullptr;
}

// The loads and stores through p (a private array or an address into it), into *acc; false
// when one of the addresses has an index not known once unrolled loops are (*cause: which).
bool accessesOf(const llvm::Value* p, const llvm::LoopInfo& li,
                std::vector<const llvm::Instruction*>* acc, Cause* cause, int depth)
{
  bool fixed = true;
  for (const llvm::User* u : p->users())
  {
    const llvm::Instruction* i = llvm::dyn_cast<llvm::Instruction>(u);
    if (!i)
      continue;
    if (llvm::isa<llvm::LoadInst>(i) || llvm::isa<llvm::StoreInst>(i))
      acc->push_back(i);
    else if (const llvm::GetElementPtrInst* g = llvm::dyn_cast<llvm::GetElementPtrInst>(i))
    {
      bool unrolled = true, known = true;   // known: at compile time, whatever the trip count
      for (const llvm::Use& ix : g->indices())
      {
        unrolled = unrolled && staticIndex(ix.get(), li, 0);
        known = known && staticIndex(ix.get(), li, 0, 1 << 20);
      }
      const llvm::Instruction* at = unrolled ? nullptr : accessThrough(g);
      if (at && (!cause->inst || (!known && !cause->runTime)))
        *cause = Cause{ at, !known };
      fixed = fixed && unrolled;
      if (depth < 4)
        fixed = accessesOf(g, li, acc, cause, depth + 1) && fixed;
    }
    else if (llvm::isa<llvm::BitCastInst>(i) && depth < 4)
      fixed = accessesOf(i, li, acc, cause, depth + 1) && fixed;
  }
  return fixed;
}

} // namespace

namespace cltrace
{

void localMemoryAccesses(const llvm::Function* f, std::unordered_set<const llvm::Instruction*>* out,
                         uint64_t* bytes, const llvm::Instruction** cause)
{
  *bytes = 0;
  *cause = nullptr;
  if (!f || f->empty())
    return;
  Cause why;
  llvm::DominatorTree dt(const_cast<llvm::Function&>(*f));
  llvm::LoopInfo li(dt);
  const llvm::DataLayout& dl = f->getParent()->getDataLayout();
  for (const llvm::Instruction& i : f->getEntryBlock())
  {
    const llvm::AllocaInst* a = llvm::dyn_cast<llvm::AllocaInst>(&i);
    if (!a || !a->getAllocatedType()->isArrayTy())
      continue;
    std::vector<const llvm::Instruction*> acc;
    if (accessesOf(a, li, &acc, &why, 0))
      continue;
    out->insert(acc.begin(), acc.end());
    if (llvm::Optional<llvm::TypeSize> sz = a->getAllocationSizeInBits(dl))
      *bytes += sz->getFixedSize() / 8;
  }
  *cause = why.inst;
}

void walkCode(irmlp* m, const llvm::Function* f)
{
  if (!m || !f)
    return;
  std::vector<const void*> ops;
  llvm::Function& fn = const_cast<llvm::Function&>(*f);
  llvm::DominatorTree dt(fn);
  llvm::LoopInfo li(dt);
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(fn.getParent()->getTargetTriple()));
  llvm::TargetLibraryInfo tli(tlii);
  llvm::AssumptionCache ac(fn);
  llvm::ScalarEvolution se(fn, tli, ac, dt, li);
  LoopTurns memo;
  const llvm::BasicBlock* prev = nullptr;
  const llvm::BasicBlock* ifBody = nullptr;   // prev, when it went on with its head's group
  for (const llvm::BasicBlock& bb : *f)
  {
    int times = unrolledTimes(li, &se, &bb, &memo);
    // in a loop unrolled whole every block is straight code: it goes on with the group, on
    // the condition it is entered on, if any
    const llvm::BasicBlock* from = times > 1 ? bb.getSinglePredecessor() : prev;
    const void* cond = guarded(from, &bb, li);
    irmlp_times(m, times);
    if (cond)
      irmlp_step(m, IRMLP_BLOCK_IF, &bb, &cond, 1);
    else if (times > 1 || rejoins(ifBody, &bb))
      irmlp_step(m, IRMLP_BLOCK_JOIN, &bb, nullptr, 0);
    else
      irmlp_step(m, IRMLP_BLOCK, &bb, nullptr, 0);
    ifBody = cond ? &bb : nullptr;
    prev = &bb;
    for (const llvm::Instruction& inst : bb)
    {
      irmlp_op op = codeOp(inst);
      ops.clear();
      const llvm::StoreInst* st = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (st && op != IRMLP_FENCE)
      {
        // a private or __local store: the value, then every variable it may go into
        op = IRMLP_STORE;
        ops.push_back(st->getValueOperand());
        objectsOf(st->getPointerOperand(), &ops);
      }
      else
      {
        for (const llvm::Use& u : inst.operands())
          ops.push_back(u.get());
        if (const llvm::LoadInst* ld = llvm::dyn_cast<llvm::LoadInst>(&inst))
          if (op == IRMLP_OTHER)   // read back from a private or __local variable
            objectsOf(ld->getPointerOperand(), &ops);
      }
      irmlp_step(m, op, &inst, ops.data(), (int)ops.size());
    }
  }
  irmlp_end(m);
}

// The name an OpenCL builtin's mangled name (_Z3dotDv4_fS_) holds ("dot"), or "".
static llvm::StringRef builtinBase(llvm::StringRef n)
{
  unsigned len = 0;
  if (!n.consume_front("_Z") || n.consumeInteger(10, len) || len > n.size())
    return llvm::StringRef();
  return n.take_front(len);
}

// The operations per result element of a builtin the FP32 or integer pipe computes (the pipe
// follows the result's type): min and max, clamp, fabs and rounding 1, mix 3, smoothstep 6,
// dot and the geometric functions 2 per element of an argument, mad24, mul_hi and the like 2;
// 0 for anything else (memory, ids, synchronisation, conversions priced as instructions).
static unsigned cheapBuiltin(const llvm::CallBase* call, llvm::StringRef base)
{
  static const struct { const char* name; unsigned per; bool byArg; } table[] = {
    { "min", 1, false }, { "max", 1, false }, { "fmin", 1, false }, { "fmax", 1, false },
    { "clamp", 2, false }, { "fabs", 1, false }, { "abs", 1, false }, { "abs_diff", 2, false },
    { "floor", 1, false }, { "ceil", 1, false }, { "round", 1, false }, { "trunc", 1, false },
    { "rint", 1, false }, { "fract", 2, false }, { "sign", 1, false }, { "copysign", 1, false },
    { "step", 1, false }, { "smoothstep", 6, false }, { "mix", 3, false }, { "fdim", 1, false },
    { "maxmag", 2, false }, { "minmag", 2, false }, { "ldexp", 1, false },
    { "dot", 2, true }, { "length", 2, true }, { "distance", 3, true }, { "normalize", 3, true },
    { "fast_length", 2, true }, { "fast_distance", 3, true }, { "fast_normalize", 3, true },
    { "cross", 3, false },
    { "mad24", 2, false }, { "mul24", 1, false }, { "mul_hi", 2, false }, { "mad_hi", 3, false },
    { "mad_sat", 3, false }, { "add_sat", 2, false }, { "sub_sat", 2, false },
    { "hadd", 2, false }, { "rhadd", 2, false }, { "rotate", 2, false }, { "popcount", 1, false },
    { "clz", 1, false }, { "ctz", 1, false }, { "upsample", 2, false }, { "bitselect", 3, false },
    { "select", 1, false } };
  for (const auto& b : table)
    if (base == b.name)
    {
      const llvm::Type* t = b.byArg && call->arg_size() ? call->getArgOperand(0)->getType()
                                                         : call->getType();
      const llvm::FixedVectorType* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
      return b.per * (v ? v->getNumElements() : 1);
    }
  return 0;
}

// A math builtin or intrinsic the special-function unit computes (by its mangled name).
bool specialFunction(llvm::StringRef n)
{
  static const char* const names[] = {
    "sqrt", "rsqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p",
    "logb", "sin", "cos", "tan", "sincos", "sinpi", "cospi", "tanpi", "asin", "acos", "atan",
    "atan2", "asinpi", "acospi", "atanpi", "atan2pi", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "erf", "erfc", "lgamma", "lgamma_r", "tgamma", "pow", "powr", "pown", "rootn",
    "hypot", "fmod", "remainder", "remquo", "native_sin", "native_cos", "native_tan",
    "native_exp", "native_exp2", "native_exp10", "native_log", "native_log2", "native_log10",
    "native_powr", "native_sqrt", "native_rsqrt", "native_divide", "native_recip", "half_sqrt",
    "half_rsqrt", "half_exp", "half_exp2", "half_exp10", "half_log", "half_log2", "half_log10",
    "half_sin", "half_cos", "half_tan", "half_powr", "half_divide", "half_recip" };
  if (n.consume_front("llvm."))
    return n.startswith("sqrt.") || n.startswith("exp.") || n.startswith("exp2.") ||
           n.startswith("log.") || n.startswith("log2.") || n.startswith("sin.") ||
           n.startswith("cos.") || n.startswith("pow.");
  if (!n.consume_front("_Z"))
    return false;
  unsigned len = 0;
  if (n.consumeInteger(10, len) || len > n.size())
    return false;
  llvm::StringRef base = n.take_front(len);
  for (const char* k : names)
    if (base == k)
      return true;
  return false;
}

unsigned flopsOf(const llvm::Instruction* inst, int* pipe)
{
  unsigned per;
  *pipe = 0;
  switch (inst->getOpcode())
  {
  case llvm::Instruction::FAdd:
  case llvm::Instruction::FSub:
  case llvm::Instruction::FMul:
    per = 1;
    break;
  case llvm::Instruction::FDiv:
    per = 1, *pipe = 1;
    break;
  case llvm::Instruction::SDiv:
  case llvm::Instruction::UDiv:
  case llvm::Instruction::SRem:
  case llvm::Instruction::URem:
    if (llvm::isa<llvm::Constant>(inst->getOperand(1)))
      return 0;           // by a constant: shifts and multiplies, not a division
    per = 20, *pipe = 2;
    break;
  case llvm::Instruction::Mul:   // the integer pipe: IMAD, IADD3, shifts and logic
  case llvm::Instruction::Add:
  case llvm::Instruction::Sub:
  case llvm::Instruction::Shl:
  case llvm::Instruction::LShr:
  case llvm::Instruction::AShr:
  case llvm::Instruction::And:
  case llvm::Instruction::Or:
  case llvm::Instruction::Xor:
    if (inst->getType()->getScalarType()->isIntegerTy(1))
      return 0;           // a truth value's logic: predicates, not the pipe
    if ((inst->getOpcode() == llvm::Instruction::Add ||
         inst->getOpcode() == llvm::Instruction::Sub) &&
        ((llvm::isa<llvm::PHINode>(inst->getOperand(0)) &&
          llvm::isa<llvm::Constant>(inst->getOperand(1))) ||
         (llvm::isa<llvm::Constant>(inst->getOperand(0)) &&
          llvm::isa<llvm::PHINode>(inst->getOperand(1)))))
      return 0;           // a loop counter's step (k + 1): unrolled or folded on a GPU
    per = 1, *pipe = 2;
    break;
  case llvm::Instruction::FPToSI:   // conversions between float and integer: 16 a clock
  case llvm::Instruction::FPToUI:   // per SM, the special functions' rate (pipe 1)
  case llvm::Instruction::SIToFP:
  case llvm::Instruction::UIToFP:
  {
    const llvm::Type* t = inst->getType();
    const llvm::FixedVectorType* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
    *pipe = 1;
    return v ? v->getNumElements() : 1;
  }
  case llvm::Instruction::Call:
  {
    const llvm::Function* f = llvm::cast<llvm::CallBase>(inst)->getCalledFunction();
    llvm::StringRef n = f ? f->getName() : llvm::StringRef();
    if (n.startswith("llvm.fma") || n.startswith("llvm.fmuladd") || n.startswith("_Z3fma") ||
        n.startswith("_Z3mad"))
      per = 2;
    else if (specialFunction(n))
      per = 1, *pipe = 1;
    else if (unsigned c = cheapBuiltin(llvm::cast<llvm::CallBase>(inst), builtinBase(n)))
    {
      *pipe = inst->getType()->getScalarType()->isIntegerTy() ? 2 : 0;
      return c * (inst->getType()->getScalarType()->isDoubleTy() ? 2 : 1);
    }
    else
      return 0;
    break;
  }
  default:
    return 0;
  }
  const llvm::Type* t = inst->getType();
  unsigned elems = 1;
  if (const llvm::FixedVectorType* v = llvm::dyn_cast<llvm::FixedVectorType>(t))
  {
    elems = v->getNumElements();
    t = v->getElementType();
  }
  if (*pipe == 2)
    return t->isIntegerTy() ? per * elems : 0;
  if (!t->isFloatingPointTy())
    return 0;
  return per * elems * (*pipe == 0 && t->isDoubleTy() ? 2 : 1);
}

// The merged block is the lexical block holding both branches.
void sourceLine(const llvm::Instruction* inst, int* line, int* column, int* merged)
{
  *merged = 0;
  if (lineOf(inst, line, column))
    return;
  *merged = 1;
  for (const llvm::Use& op : inst->operands())
    if (op->getType()->isPointerTy() &&
        lineOf(llvm::dyn_cast<llvm::Instruction>(op.get()), line, column))
      return;
  if (const llvm::DILocation* loc = inst->getDebugLoc().get())
    if (const llvm::DILexicalBlock* b = llvm::dyn_cast<llvm::DILexicalBlock>(loc->getScope()))
      if (b->getLine() > 0)
      {
        *line = (int)b->getLine();
        *column = (int)b->getColumn();
        return;
      }
  for (const llvm::Instruction* p = inst->getPrevNode(); p; p = p->getPrevNode())
    if (lineOf(p, line, column))
      return;
}

} // namespace cltrace
