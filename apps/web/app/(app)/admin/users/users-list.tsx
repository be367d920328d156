"use client";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { ROLE_NAMES } from "@tranche/contracts";
import { useTRPC } from "../../../../lib/trpc";
import { TableRowState } from "../../../../components/ui";
import type { useNotice } from "../../../../components/admin/use-action";
import { disableUserQuestion, roleChangeQuestion, takesPowerAway } from "../../../../lib/confirm-words";
import { userChangedText, userCountText } from "../../../../lib/user-words";

type RoleName = (typeof ROLE_NAMES)[number];
export const roleWord = (r: string) => r.charAt(0) + r.slice(1).toLowerCase();
export const USERS_PER_PAGE = 25;

/**
 * Everyone, a page at a time and found by a part of a name or e-mail on the server: a lab imports
 * hundreds of people, and the page listed them all at once with nothing to find one by.
 */
export function UsersList({
  notice: n,
  onLink,
}: {
  notice: ReturnType<typeof useNotice>;
  onLink: (link: { email: string; url: string; expiresAt: string }) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [typed, setTyped] = useState("");
  const [q, setQ] = useState("");
  const [offset, setOffset] = useState(0);
  // Asked once typing pauses, from the first page of what matches.
  useEffect(() => {
    const next = typed.trim();
    if (next === q) return;
    const t = setTimeout(() => (setQ(next), setOffset(0)), 250);
    return () => clearTimeout(t);
  }, [typed, q]);
  const page = useQuery({
    ...trpc.admin.userPage.queryOptions({ q, limit: USERS_PER_PAGE, offset }),
    placeholderData: keepPreviousData,
  });
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.admin.userPage.pathKey() });
  const update = useMutation(
    trpc.admin.updateUser.mutationOptions({
      onSuccess: (u, { change }) => (n.ok(userChangedText(u, change)), void refresh()),
      onError: n.fail,
    }),
  );
  const reset = useMutation(trpc.admin.resetPasswordLink.mutationOptions({ onError: n.fail }));
  const users = page.data?.users ?? [];
  const total = page.data?.total ?? 0;

  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Everyone</h2>
        <input
          className="input"
          type="search"
          aria-label="Find a user by name or e-mail"
          placeholder="Find by name or e-mail"
          style={{ width: 260 }}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
        />
      </div>
      <p className="panel-body muted small" data-testid="users-count" aria-live="polite" style={{ paddingBottom: 0 }}>
        {page.data ? userCountText(total, page.data.offset, users.length, q) : "Loading…"}
      </p>
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
          <TableRowState loading={!page.data} empty={false} cols={5} text="" />
          {users.map((u) => (
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
                      {roleWord(r)}
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
                        { onSuccess: (r) => onLink({ email: u.email, url: r.setPasswordUrl, expiresAt: r.expiresAt }) },
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
      {total > USERS_PER_PAGE ? (
        <div className="panel-body row">
          <button className="btn small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - USERS_PER_PAGE))}>
            Previous page
          </button>
          <button
            className="btn small"
            disabled={offset + USERS_PER_PAGE >= total}
            onClick={() => setOffset(offset + USERS_PER_PAGE)}
          >
            Next page
          </button>
        </div>
      ) : null}
    </section>
  );
}
