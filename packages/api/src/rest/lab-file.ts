import { parse as parseYaml } from "yaml";
import { LIMITS, readBodyText } from "@tranche/contracts";
import { DomainError } from "@tranche/domain";
import { TooLarge } from "./io";

/**
 * The body of POST /admin/import: a lab file as YAML (content type application/yaml or text/yaml) or
 * JSON (any other), at most LIMITS.importBytes. Unreadable text is bad input saying where it broke.
 */
export async function readLabFile(req: Request): Promise<unknown> {
  const text = await readBodyText(req, LIMITS.importBytes);
  if (text === null) throw new TooLarge(LIMITS.importBytes);
  if (!text.trim()) throw new DomainError("BAD_INPUT", "The request body is empty; send a lab file (YAML or JSON)");
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (/\b(application|text)\/(x-)?yaml\b/.test(type)) {
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
