"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { BudgetTreeNodeView } from "@tranche/contracts";
import { useTRPC } from "../../../lib/trpc";
import { noChildrenText } from "../../../lib/children-words";
import type { useNotice } from "../../../components/admin/use-action";
import { FormRow, RowInput } from "../../../components/admin/form-row";

/**
 * A new budget under `node`, or why it takes none (the server's takesChildren): the one form of the
 * admins' Budget tree and of a manager's Shape panel on the Budgets page, which had drifted apart in
 * their words. The parent keys it by node: a name typed belongs to the node it was typed for.
 */
export function AddChild({ node, notice: n }: { node: BudgetTreeNodeView; notice: ReturnType<typeof useNotice> }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation(trpc.admin.createNode.mutationOptions({ onError: n.fail }));
  const noChildren = noChildrenText(node);
  if (noChildren)
    return (
      <p className="muted small" data-testid="no-children">
        {noChildren}
      </p>
    );
  return (
    <FormRow
      onSubmit={() =>
        create.mutate(
          { parent: node.path, name: name.trim() },
          {
            onSuccess: (r) => {
              n.ok(`Created ${r.path}.`);
              setName("");
              void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
            },
          },
        )
      }
    >
      <RowInput label={`New budget under ${node.path}`} placeholder="name, e.g. long-context" value={name} onChange={setName} />
      <button className="btn" disabled={create.isPending || name.trim() === ""}>
        Add a budget here
      </button>
    </FormRow>
  );
}
