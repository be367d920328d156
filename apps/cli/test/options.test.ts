import { describe, expect, it, vi } from "vitest";
import { CliError } from "../src/client";
import { Command } from "commander";
import {
  NO_TIME_OPTION,
  countOption,
  durationOption,
  nodeListOption,
  perUserLimitArg,
  slurmTimeOption,
  usageError,
} from "../src/options";
import { updateBody } from "../src/update";
import { registerJobRules } from "../src/job-rules";

describe("countOption", () => {
  it("takes a positive whole number", () => {
    expect(countOption("--limit", "25")).toBe(25);
    expect(countOption("--tail", "1000", 1000)).toBe(1000);
  });

  it("refuses zero, negatives, fractions and words, naming the option", () => {
    for (const bad of ["0", "-3", "2.5", "abc", "", "1e3", " 5"])
      expect(() => countOption("--limit", bad), bad).toThrow(usageError(`--limit must be a positive whole number, got '${bad}'`));
    expect(() => countOption("--tail", "1001", 1000)).toThrow("--tail must be a whole number from 1 to 1,000, got '1001'");
    expect(() => countOption("--limit", "0")).toThrow(CliError);
  });
});

describe("durationOption", () => {
  it("passes a duration with its unit, and 0, on as given", () => {
    for (const ok of ["90m", "2h", "1h30m", "30s", "0", "0.0", "-1h", "abc"])
      expect(durationOption("--min-runtime", ok)).toBe(ok);
  });

  it("refuses a number without its unit, naming the option and the units", () => {
    expect(() => durationOption("--min-runtime", "90")).toThrow(
      usageError("--min-runtime 90 has no unit: write 90m for minutes, 90h for hours or 90s for seconds (e.g. --min-runtime 2h)"),
    );
    expect(() => durationOption("--by", "1.5")).toThrow("--by 1.5 has no unit");
  });
});

describe("slurmTimeOption", () => {
  const submit = () =>
    new Command("submit")
      .exitOverride()
      .option("--max-runtime <duration>")
      .addOption(slurmTimeOption())
      .argument("[command...]")
      .action(() => undefined);

  it("refuses Slurm's --time and -t, naming the options to use instead", () => {
    expect(NO_TIME_OPTION).toBe(
      "tranche has no --time: the maximum runtime is --max-runtime (and the protected minimum --min-runtime)",
    );
    for (const args of [["--time", "2h"], ["--time=90"], ["-t", "2h"], ["-t2h"]])
      expect(() => submit().parse([...args, "--", "true"], { from: "user" }), args.join(" ")).toThrow(usageError(NO_TIME_OPTION));
  });

  it("leaves the command as it was without it, and out of the help", () => {
    expect(submit().parse(["--max-runtime", "2h", "--", "true"], { from: "user" }).opts()).toEqual({ maxRuntime: "2h" });
    expect(submit().helpInformation()).not.toContain("--time");
  });
});

describe("tranche limit's GPUs", () => {
  it("takes a whole number of at least 1, or none", () => {
    expect(perUserLimitArg("16")).toBe(16);
    expect(perUserLimitArg("none")).toBeNull();
  });

  it("refuses anything else before any request, naming none (not the API's null)", async () => {
    vi.stubEnv("TRANCHE_URL", "http://127.0.0.1:9");
    vi.stubEnv("TRANCHE_TOKEN", "trn_test");
    const sent: unknown[] = [];
    vi.stubGlobal("fetch", async (...a: unknown[]) => (sent.push(a), new Response("{}")));
    try {
      for (const bad of ["-1", "0", "abc", "2.5", "null", ""]) {
        const program = new Command().exitOverride();
        registerJobRules(program, () => {});
        await expect(program.parseAsync(["limit", "lab/nlp/p1", bad], { from: "user" }), bad).rejects.toThrow(
          usageError(`The GPU limit must be a whole number of at least 1, or none for no limit; got '${bad}'`),
        );
      }
      expect(sent).toEqual([]);
    } finally {
      vi.unstubAllGlobals();
      vi.unstubAllEnvs();
    }
  });
});

describe("--nodelist / --exclude", () => {
  it("expands Slurm's ranges; none removes the list on update only", () => {
    expect(nodeListOption("--nodelist", "gpu-[03-05],gpu-07")).toEqual(["gpu-03", "gpu-04", "gpu-05", "gpu-07"]);
    expect(nodeListOption("--exclude", "none", true)).toBeNull();
    expect(nodeListOption("--exclude", "none")).toEqual(["none"]);
    expect(() => nodeListOption("--nodelist", "gpu-[05-03]")).toThrow(usageError("--nodelist: range 05-03 runs backwards"));
    expect(updateBody({ nodelist: "gpu-[1-2]", exclude: "none", array: false })).toEqual({
      nodes: ["gpu-1", "gpu-2"],
      excludeNodes: null,
    });
  });
});
