import { AdminGate } from "../../../../components/admin/gate";
import { LabView } from "./lab-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Lab file" };

export default function AdminLabPage() {
  return (
    <AdminGate roles={[]} what="import or export a lab file">
      <LabView />
    </AdminGate>
  );
}
