import { AdminGate } from "../../../../components/admin/gate";
import { ClustersAdmin } from "./clusters-admin";

export const dynamic = "force-dynamic";
export const metadata = { title: "Clusters and hosts" };

export default function AdminClustersPage() {
  return (
    <AdminGate roles={["OPERATOR"]} what="enroll hosts">
      <ClustersAdmin />
    </AdminGate>
  );
}
