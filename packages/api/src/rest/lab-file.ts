import { LIMITS, readBodyText } from "@tranche/contracts";
import { DomainError } from "@tranche/domain";
import { parseLabText } from "../lab-text";
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
  return parseLabText(text, /\b(application|text)\/(x-)?yaml\b/.test(type) ? "yaml" : "json");
}
