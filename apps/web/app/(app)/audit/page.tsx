import { AdminGate } from "../../../components/admin/gate";
import { AuditView } from "../../../components/audit-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Audit log" };

// Outside /admin: operators and managers read their part of the log too (the API narrows it).
export default function AuditPage() {
  return (
    <AdminGate roles={["OPERATOR", "MANAGER"]} what="read the audit log">
      <AuditView />
    </AdminGate>
  );
}
