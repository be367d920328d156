import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

// The source of every page and component (the .tsx files under app/ and components/), for the tests
// that read what the pages write.
const root = join(__dirname, "..");

function tsxFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" || name.startsWith(".") ? [] : tsxFiles(p);
    return p.endsWith(".tsx") ? [p] : [];
  });
}

/** Each page and component file: its path from the web app's folder ("components/ui.tsx") and its text. */
export function pageSources(): { file: string; source: string }[] {
  return [...tsxFiles(join(root, "app")), ...tsxFiles(join(root, "components"))].map((p) => ({
    file: relative(root, p),
    source: readFileSync(p, "utf8"),
  }));
}
