"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ROLE_NAMES } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { PageHead, TableRowState, when } from "../../../../components/ui";
import { Notice } from "../../../../components/admin/notice";
import { useNotice } from "../../../../components/admin/use-action";
import { FormRow, RowInput, RowSelect } from "../../../../components/admin/form-row";
import { disableUserQuestion, roleChangeQuestion, takesPowerAway } from "../../../../lib/confirm-words";
import { userChangedText } from "../../../../lib/user-words";

type RoleName = (typeof ROLE_NAMES)[number];
const word = (r: string) => r.charAt(0) + r.slice(1).toLowerCase();

/** Create users (a one-time set-password link to hand them), change roles, disable. */
export function UsersAdmin() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const users = useQuery(trpc.admin.users.queryOptions());
  const n = useNotice();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<RoleName>("RESEARCHER");
  const [link, setLink] = useState<{ email: string; url: string; expiresAt: string } | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.admin.users.queryKey() });
  const create = useMutation(
    trpc.admin.createUser.mutationOptions({
      onSuccess: (r) => {
        setLink({ email: r.user.email, url: r.setPasswordUrl, expiresAt: r.expiresAt });
        setEmail("");
        setName("");
        n.clear();
        void refresh();
      },
      onError: n.fail,
    }),
  );
  const update = useMutation(
    trpc.admin.updateUser.mutationOptions({
      onSuccess: (u, { change }) => (n.ok(userChangedText(u, change)), void refresh()),
      onError: n.fail,
    }),
  );
  const reset = useMutation(trpc.admin.resetPasswordLink.mutationOptions({ onError: n.fail }));

  return (
    <>
      <PageHead
        title="Users"
        lede="Create accounts, choose roles, disable people who left. A disabled user's sessions and API tokens stop at once."
      />
      <Notice notice={n.notice} />
      <section className="panel">
        <div className="panel-head">
          <h2>New user</h2>
        </div>
        <FormRow className="panel-body row" onSubmit={() => create.mutate({ email, name, role })}>
          <RowInput label="E-mail" placeholder="e-mail" width={260} value={email} onChange={setEmail} />
          <RowInput label="Name" placeholder="name" width={220} value={name} onChange={setName} />
          <RowSelect
            label="Role"
            width={160}
            value={role}
            onChange={setRole}
            options={ROLE_NAMES.map((r) => [r, word(r)] as const)}
          />
          <button className="btn primary" disabled={create.isPending}>
            Create user
          </button>
        </FormRow>
        {link ? (
          <div className="panel-body" style={{ paddingTop: 0 }}>
            <div className="alert ok" style={{ marginBottom: "0.6rem" }}>
              Give {link.email} this link to choose a password. It works once, until {when(link.expiresAt)}, and is not shown
              again. Nothing is e-mailed.
            </div>
            <div className="token-once" data-testid="set-password-link">
              {link.url}
            </div>
          </div>
        ) : null}
      </section>
      <section className="panel">
        <div className="panel-head">
          <h2>Everyone</h2>
        </div>
        <table className="table" aria-label="Users">
          <thead>
            <tr>
              <th>Name</th>
              <th>E-mail</th>
              <th>Role</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            <TableRowState loading={!users.data} empty={users.data?.length === 0} cols={5} text="No users yet." />
            {(users.data ?? []).map((u) => (
              <tr key={u.id} style={{ opacity: u.disabled ? 0.55 : 1 }}>
                <td>{u.name}</td>
                <td className="small">{u.email}</td>
                <td>
                  <select
                    className="select"
                    aria-label={`Role of ${u.email}`}
                    value={u.role}
                    onChange={(e) => {
                      const role = e.target.value as RoleName;
                      if (!takesPowerAway(u.role, role) || confirm(roleChangeQuestion(u.name, u.email, u.role, role)))
                        update.mutate({ id: u.id, change: { role } });
                    }}
                  >
                    {ROLE_NAMES.map((r) => (
                      <option key={r} value={r}>
                        {word(r)}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="small">{u.disabled ? "disabled" : u.hasPassword ? "active" : "no password yet"}</td>
                {/* The flex row inside the cell: a flex cell drew its borders out of line with the rest of the row. */}
                <td className="num">
                  <div className="row">
                    <button
                      className="btn small"
                      onClick={() =>
                        reset.mutate(
                          { id: u.id },
                          { onSuccess: (r) => setLink({ email: u.email, url: r.setPasswordUrl, expiresAt: r.expiresAt }) },
                        )
                      }
                    >
                      New password link
                    </button>
                    <Link className="btn small" href={`/admin/users/${u.id}/sign-ins`}>
                      Signed-in browsers
                    </Link>
                    <button
                      className={`btn small ${u.disabled ? "" : "danger"}`}
                      onClick={() => {
                        if (u.disabled || confirm(disableUserQuestion(u.name, u.email)))
                          update.mutate({ id: u.id, change: { disabled: !u.disabled } });
                      }}
                    >
                      {u.disabled ? "Enable" : "Disable"}
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
