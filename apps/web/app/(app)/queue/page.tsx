import { redirect } from "next/navigation";
import { db } from "../../../server/db";

export default async function QueueIndex() {
  const first = await db().cluster.findFirst({ orderBy: { name: "asc" }, select: { name: true } });
  redirect(first ? `/queue/${first.name}` : "/");
}
