import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { maintenanceTimeWords, type NodeView } from "@tranche/contracts";
import { parseDrainAt } from "../src/drain-time";
import { planWords } from "../src/nodes";

// Node reads TZ again whenever it is set: each case runs in Berlin's zone (CET, +01:00 in December).
let tz: string | undefined;
beforeEach(() => {
  tz = process.env.TZ;
  process.env.TZ = "Europe/Berlin";
});
afterEach(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe("tranche node drain --at", () => {
  it("reads a date and time in the local zone, as date -d does", () => {
    expect(parseDrainAt("2026-12-12 02:00")).toBe("2026-12-12T01:00:00.000Z");
    expect(parseDrainAt("2026-12-12T02:00:30")).toBe("2026-12-12T01:00:30.000Z");
    expect(parseDrainAt("2026-07-12 02:00")).toBe("2026-07-12T00:00:00.000Z"); // summer time, +02:00
  });

  it("takes the zone the text names", () => {
    expect(parseDrainAt("2026-12-12 02:00 UTC")).toBe("2026-12-12T02:00:00.000Z");
    expect(parseDrainAt("2026-12-12T02:00Z")).toBe("2026-12-12T02:00:00.000Z");
    expect(parseDrainAt("2026-12-12 02:00 -05:00")).toBe("2026-12-12T07:00:00.000Z");
    expect(parseDrainAt("2026-12-12 02:00 +0530")).toBe("2026-12-11T20:30:00.000Z");
  });

  it("refuses what it cannot read, or reads two ways, naming the form it takes", () => {
    for (const raw of ["12/12 02:00", "Saturday 02:00", "02:00", "2026-12-12", "tomorrow", "2026-12-12 2:00"])
      expect(() => parseDrainAt(raw)).toThrow(/--at takes a date and a time as year-month-day hours:minutes/);
    expect(() => parseDrainAt("2026-02-31 02:00")).toThrow(/does not exist in your time zone/);
    expect(() => parseDrainAt("2026-02-31 02:00 UTC")).toThrow(/is not a date and time/);
    expect(() => parseDrainAt("2026-12-12 24:00")).toThrow(/is not a date and time/);
    // Berlin's clocks skip 02:00-03:00 on 29 March 2026 and pass 02:00-03:00 twice on 25 October.
    expect(() => parseDrainAt("2026-03-29 02:30")).toThrow(/does not exist in your time zone/);
    expect(() => parseDrainAt("2026-10-25 02:30")).toThrow(/happens twice in your time zone/);
    expect(parseDrainAt("2026-10-25 02:30 +01:00")).toBe("2026-10-25T01:30:00.000Z");
  });
});

describe("tranche nodes: a plan in words", () => {
  const node = (over: Partial<NodeView>) => ({ drainAt: null, drainReason: null, drainPlannedBy: null, ...over }) as NodeView;

  it("says when, in the reader's zone, why and who, never the raw time", () => {
    const now = new Date("2026-12-07T23:00:00Z");
    expect(planWords(node({ drainAt: "2026-12-12T01:00:00.000Z", drainReason: "driver 560", drainPlannedBy: "Olga" }), now)).toBe(
      "maintenance at Sat 12 Dec 02:00 (driver 560, planned by Olga)",
    );
    expect(planWords(node({ drainAt: "2027-01-02T01:00:00.000Z" }), now)).toBe("maintenance at Sat 2 Jan 2027 02:00");
    expect(planWords(node({}), now)).toBeNull();
    expect(maintenanceTimeWords("2026-12-12T01:00:00.000Z", now, "UTC")).toBe("Sat 12 Dec 01:00");
  });
});
