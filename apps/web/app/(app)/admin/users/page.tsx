import { AdminGate } from "../../../../components/admin/gate";
import { OidcRules } from "./oidc-rules";
import { UsersAdmin } from "./users-admin";

export const dynamic = "force-dynamic";
export const metadata = { title: "Users" };

export default function AdminUsersPage() {
  return (
    <AdminGate roles={[]} what="manage users">
      <UsersAdmin />
      <OidcRules />
    </AdminGate>
  );
}
