"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ROLE_NAMES } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { PageHead, when } from "../../../../components/ui";
import { Notice } from "../../../../components/admin/notice";
import { useNotice } from "../../../../components/admin/use-action";
import { FormRow, RowInput, RowSelect } from "../../../../components/admin/form-row";
import { UsersList, roleWord } from "./users-list";

type RoleName = (typeof ROLE_NAMES)[number];

/** Create users (a one-time set-password link to hand them), change roles, disable. */
export function UsersAdmin() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const n = useNotice();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<RoleName>("RESEARCHER");
  const [link, setLink] = useState<{ email: string; url: string; expiresAt: string } | null>(null);
  const create = useMutation(
    trpc.admin.createUser.mutationOptions({
      onSuccess: (r) => {
        setLink({ email: r.user.email, url: r.setPasswordUrl, expiresAt: r.expiresAt });
        setEmail("");
        setName("");
        n.clear();
        void qc.invalidateQueries({ queryKey: trpc.admin.userPage.pathKey() });
      },
      onError: n.fail,
    }),
  );

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
            options={ROLE_NAMES.map((r) => [r, roleWord(r)] as const)}
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
      <UsersList notice={n} onLink={setLink} />
    </>
  );
}
