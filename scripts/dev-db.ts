import { openDatabase } from "@tranche/db/setup";
const t = Date.now();
const db = await openDatabase({ log: console.log });
console.log("up", db.url, Date.now() - t, "ms");
process.on("SIGTERM", async () => {
  await db.stop();
  process.exit(0);
});
setInterval(() => {}, 1e9);
