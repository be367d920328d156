import { parse as parseYaml } from "yaml";
import { LIMITS } from "@tranche/contracts";
import { DomainError } from "@tranche/domain";

/**
 * A lab file's text as REST's POST /admin/import and the web's lab page both read it: YAML or JSON,
 * unreadable text a bad input saying where it broke. One parser, so the page checks what REST would.
 */
export function parseLabText(text: string, format: "yaml" | "json"): unknown {
  if (!text.trim()) throw new DomainError("BAD_INPUT", "The lab file is empty; send a lab file (YAML or JSON)");
  if (format === "yaml") {
    try {
      // Aliases expand: a small file of aliases to aliases could otherwise grow to gigabytes.
      return parseYaml(text, { maxAliasCount: 100 });
    } catch (e) {
      const line = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
      throw new DomainError("BAD_INPUT", `The lab file is not valid YAML${line ? ` (line ${line})` : ""}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("BAD_INPUT", "The lab file is not valid JSON; send YAML with content type application/yaml");
  }
}

/** The web's pasted or uploaded text: as large as REST's body may be, read as YAML (JSON is YAML too). */
export function parsePastedLab(text: string): unknown {
  if (new TextEncoder().encode(text).length > LIMITS.importBytes)
    throw new DomainError("BAD_INPUT", `The lab file is larger than ${LIMITS.importBytes / 1024 / 1024} MiB; split it in two`);
  return parseLabText(text, "yaml");
}
