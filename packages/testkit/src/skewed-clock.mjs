// Preload (`node --import`) that moves this process's clock by CLOCK_SKEW_MS: a host whose clock is off,
// for bench/fault-campaign.bench.ts and the clock tests. Date.now and new Date() both move; timers (monotonic) do not, as on a host.
const skew = Number(process.env.CLOCK_SKEW_MS ?? 0);
if (skew) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(realNow() + skew);
      else super(...args);
    }
    static now() {
      return realNow() + skew;
    }
  }
  globalThis.Date = SkewedDate;
}
