import { AdminGate } from "../../../../components/admin/gate";
import { AuditView } from "./audit-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Audit log" };

export default function AdminAuditPage() {
  return (
    <AdminGate roles={[]} what="read the audit log">
      <AuditView />
    </AdminGate>
  );
}
