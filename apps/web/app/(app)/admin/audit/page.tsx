import { redirect } from "next/navigation";

// The audit log moved to /audit when operators and managers could read it; old links still land there.
export default function AdminAuditPage() {
  redirect("/audit");
}
