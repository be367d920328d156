import { startEmbeddedPostgres, migrateDeploy } from "@tranche/db/setup";
const s = await startEmbeddedPostgres({ dataDir: "/work/main/.data/rt-dev-pg", port: 54349, database: "postgres" });
console.log("up", s.url);
process.on("SIGTERM", async () => { await s.stop(); process.exit(0); });
process.on("SIGINT", async () => { await s.stop(); process.exit(0); });
setInterval(() => {}, 1e9);
