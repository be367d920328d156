import { AdminGate } from "../../../components/admin/gate";
import { TreeAdmin } from "./tree-admin";

export const dynamic = "force-dynamic";
export const metadata = { title: "Budget tree" };

export default function AdminTreePage() {
  return (
    <AdminGate roles={[]} what="change the budget tree">
      <TreeAdmin />
    </AdminGate>
  );
}
