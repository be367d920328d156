// A configuration problem a person must fix. Entry points print `message` on one line, no stack.
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
