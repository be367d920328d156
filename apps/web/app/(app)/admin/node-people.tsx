"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { removedMemberText } from "@tranche/contracts";
import { useTRPC } from "../../../lib/trpc";
import { removeManagerQuestion, removeMemberQuestion } from "../../../lib/confirm-words";
import type { useNotice } from "../../../components/admin/use-action";
import { FormRow, RowInput } from "../../../components/admin/form-row";

/** Who may charge a budget (members) and who manages a node (managers), with add and remove. */
export function NodePeople({
  path,
  isBudget,
  onNotice: n,
}: {
  path: string;
  isBudget: boolean;
  onNotice: ReturnType<typeof useNotice>;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const people = useQuery(trpc.admin.people.queryOptions({ path }));
  const [member, setMember] = useState("");
  const [manager, setManager] = useState("");
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.admin.people.queryKey({ path }) });
    void qc.invalidateQueries({ queryKey: trpc.budget.tree.queryKey() });
  };
  // What was typed stays after a failure, to correct it; it goes once it was taken.
  const opts = (text: string, clear?: () => void) => ({
    onSuccess: () => (n.ok(text), clear?.(), refresh()),
    onError: n.fail,
  });
  const addMember = useMutation(trpc.admin.addMember.mutationOptions());
  const removeMember = useMutation(trpc.admin.removeMember.mutationOptions());
  const addManager = useMutation(trpc.admin.addManager.mutationOptions());
  const removeManager = useMutation(trpc.admin.removeManager.mutationOptions());
  const list = (
    rows: { email: string; name: string }[] | undefined,
    question: (email: string) => string,
    remove: (email: string) => void,
    none: string,
  ) =>
    // Still loading is not "Nobody": the list says nothing about the people until it is known.
    rows === undefined ? (
      <p className="muted small">Loading…</p>
    ) : rows.length ? (
      <ul className="small" style={{ margin: 0, paddingLeft: "1.1rem" }}>
        {rows.map((p) => (
          <li key={p.email}>
            {p.name} &lt;{p.email}&gt;{" "}
            <button
              className="linkbtn"
              onClick={() => {
                if (confirm(question(p.email))) remove(p.email);
              }}
              aria-label={`Remove ${p.email}`}
            >
              remove
            </button>
          </li>
        ))}
      </ul>
    ) : (
      <p className="muted small">{none}</p>
    );
  return (
    <>
      {isBudget ? (
        <div>
          <h3>Members (may charge this budget)</h3>
          {list(
            people.data?.members,
            (email) => removeMemberQuestion(email, path),
            (email) =>
              removeMember.mutate(
                { path, email },
                { onSuccess: (r) => (n.ok(removedMemberText(email, path, r.jobsLeft)), refresh()), onError: n.fail },
              ),
            "Nobody yet.",
          )}
          <FormRow
            onSubmit={() =>
              addMember.mutate(
                { path, email: member.trim() },
                opts(`${member.trim()} may now charge ${path}.`, () => setMember("")),
              )
            }
          >
            <RowInput label="Member e-mail" placeholder="e-mail" value={member} onChange={setMember} />
            <button className="btn">Add member</button>
          </FormRow>
        </div>
      ) : null}
      <div>
        <h3>Managers (change shares and members below this node)</h3>
        {list(
          people.data?.managers,
          (email) => removeManagerQuestion(email, path),
          (email) => removeManager.mutate({ path, email }, opts(`${email} no longer manages ${path}.`)),
          "Nobody.",
        )}
        <FormRow
          onSubmit={() =>
            addManager.mutate(
              { path, email: manager.trim() },
              opts(`${manager.trim()} now manages ${path}.`, () => setManager("")),
            )
          }
        >
          <RowInput label="Manager e-mail" placeholder="e-mail of a manager" value={manager} onChange={setManager} />
          <button className="btn">Add manager</button>
        </FormRow>
      </div>
    </>
  );
}
