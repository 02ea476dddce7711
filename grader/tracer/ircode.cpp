// ircode.cpp — the kernel's LLVM IR as the Oclgrind plugin passes it on (see ircode.h): the
// code walked block by block into irmlp.c's loads-in-flight model, and an access's source
// line from its debug location.
#include <oclgrind/common.h>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Value.h>
#include <llvm/Support/Casting.h>

#include <vector>

#include "ircode.h"

using namespace oclgrind;

namespace
{

// The condition of a short `if` whose body is bb, or null: bb's one predecessor is prev, the
// block laid out just before it, which branches on that condition to bb or to bb's one
// successor.  A GPU compiler predicates such a body (CUDA C Programming Guide, "Branch
// predication"), so its loads issue with prev's (irmlp.h, IRMLP_BLOCK_IF).
const void* predicable(const llvm::BasicBlock* prev, const llvm::BasicBlock* bb)
{
  if (!prev || bb->getSinglePredecessor() != prev || !bb->getSingleSuccessor())
    return nullptr;
  const llvm::BranchInst* br = llvm::dyn_cast<llvm::BranchInst>(prev->getTerminator());
  if (!br || !br->isConditional())
    return nullptr;
  const llvm::BasicBlock* other =
      br->getSuccessor(0) == bb ? br->getSuccessor(1) : br->getSuccessor(0);
  return other == bb->getSingleSuccessor() ? br->getCondition() : nullptr;
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
  return llvm::isa<llvm::CallBase>(&inst) ? IRMLP_FENCE : IRMLP_OTHER;
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

} // namespace

namespace cltrace
{

void walkCode(irmlp* m, const llvm::Function* f)
{
  if (!m || !f)
    return;
  std::vector<const void*> ops;
  const llvm::BasicBlock* prev = nullptr;
  for (const llvm::BasicBlock& bb : *f)
  {
    const void* cond = predicable(prev, &bb);
    irmlp_step(m, cond ? IRMLP_BLOCK_IF : IRMLP_BLOCK, &bb, &cond, cond ? 1 : 0);
    prev = &bb;
    for (const llvm::Instruction& inst : bb)
    {
      ops.clear();
      for (const llvm::Use& op : inst.operands())
        ops.push_back(op.get());
      irmlp_step(m, codeOp(inst), &inst, ops.data(), (int)ops.size());
    }
  }
  irmlp_end(m);
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
