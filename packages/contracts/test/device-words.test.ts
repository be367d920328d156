import { describe, expect, it } from "vitest";
import { deviceWords } from "../src/device-words";

describe("deviceWords", () => {
  it("names the browser and the system as a person does", () => {
    const cases: [string | null, string][] = [
      ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"],
      [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
        "Safari on macOS",
      ],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        "Edge on Windows",
      ],
      [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1",
        "Chrome on iPhone",
      ],
      [
        "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        "Chrome on Android",
      ],
      ["curl/8.5.0", "curl"],
      ["Mozilla/5.0 (X11; Linux x86_64)", "A browser on Linux"],
      ["something", "An unknown browser"],
      [null, "An unknown browser"],
    ];
    for (const [ua, words] of cases) expect(deviceWords(ua), String(ua)).toBe(words);
  });
});
