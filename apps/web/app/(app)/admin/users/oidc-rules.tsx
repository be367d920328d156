"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ROLE_NAMES } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { removeRuleQuestion } from "../../../../lib/confirm-words";
import { Notice } from "../../../../components/admin/notice";
import { useNotice } from "../../../../components/admin/use-action";
import { FormRow, RowInput, RowSelect } from "../../../../components/admin/form-row";

type RoleName = (typeof ROLE_NAMES)[number];

/** Single sign-on mapping: an e-mail domain or group claim gives a role and budgets at first sign-in. */
export function OidcRules() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const rules = useQuery(trpc.admin.oidcRules.queryOptions());
  const n = useNotice();
  const [match, setMatch] = useState<"EMAIL_DOMAIN" | "GROUP">("EMAIL_DOMAIN");
  const [value, setValue] = useState("");
  const [role, setRole] = useState<RoleName>("RESEARCHER");
  const [budgets, setBudgets] = useState("");
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.admin.oidcRules.queryKey() });
  const create = useMutation(
    trpc.admin.createOidcRule.mutationOptions({ onSuccess: () => (n.ok("Rule added."), void refresh()), onError: n.fail }),
  );
  const remove = useMutation(
    trpc.admin.deleteOidcRule.mutationOptions({ onSuccess: () => (n.ok("Rule removed."), void refresh()), onError: n.fail }),
  );
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Single sign-on mapping</h2>
      </div>
      <div className="panel-body">
        <p className="small muted" style={{ marginTop: 0 }}>
          Someone who signs in through single sign-on for the first time gets the highest role of the rules that match their
          e-mail domain or one of their groups, and may charge every budget those rules list.
        </p>
        <Notice notice={n.notice} />
        <FormRow
          onSubmit={() => {
            const list = budgets
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean);
            create.mutate({ match, value, role, budgets: list });
          }}
        >
          <RowSelect
            label="Match by"
            width={170}
            value={match}
            onChange={setMatch}
            options={[
              ["EMAIL_DOMAIN", "E-mail domain"],
              ["GROUP", "Group"],
            ]}
          />
          <RowInput label="Domain or group" placeholder="lab.example or group" width={200} value={value} onChange={setValue} />
          <RowSelect
            label="Rule role"
            width={150}
            value={role}
            onChange={setRole}
            options={ROLE_NAMES.map((r) => [r, r.charAt(0) + r.slice(1).toLowerCase()] as const)}
          />
          <RowInput label="Budgets" placeholder="budgets, comma-separated (optional)" value={budgets} onChange={setBudgets} />
          <button className="btn">Add rule</button>
        </FormRow>
      </div>
      {rules.data?.length ? (
        <table className="table" aria-label="Sign-on rules">
          <thead>
            <tr>
              <th>Match</th>
              <th>Role</th>
              <th>Budgets</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.data.map((r) => (
              <tr key={r.id}>
                <td>
                  {r.match === "GROUP" ? "group" : "e-mail domain"} <b>{r.value}</b>
                </td>
                <td>{r.role.toLowerCase()}</td>
                <td className="small">{r.budgets.join(", ") || "-"}</td>
                <td className="num">
                  <button
                    className="btn small danger"
                    aria-label={`Remove the rule for ${r.match === "GROUP" ? "group" : "e-mail domain"} ${r.value}`}
                    onClick={() => {
                      if (confirm(removeRuleQuestion(r.match === "GROUP" ? "group" : "e-mail domain", r.value)))
                        remove.mutate({ id: r.id });
                    }}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
