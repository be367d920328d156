import type { PrismaClient } from "@tranche/db";
import { deliverWebhooks } from "@tranche/domain";

/**
 * Sends users' notifications to their webhooks on its own timer, apart from the scheduling loop: a slow
 * or failing endpoint costs at most the POST timeout of this loop, never a cycle. Every replica may run
 * it (a round claims its notifications, so two never send the same one at once, and one a dead replica
 * claimed is taken again later). Failures are logged by deliverWebhooks; a database error is logged here
 * and the next round tries again.
 */
export class WebhookSender {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly log: (line: string) => void,
    private readonly everyMs = 2_000,
    private readonly timeoutMs?: number,
  ) {}

  start(): void {
    const tick = () => {
      this.running = this.round().finally(() => {
        this.running = null;
        if (this.timer !== null) this.timer = setTimeout(tick, this.everyMs);
      });
    };
    this.timer = setTimeout(tick, this.everyMs);
  }

  async round(): Promise<void> {
    try {
      await deliverWebhooks(this.prisma, { warn: (m) => this.log(m) }, { timeoutMs: this.timeoutMs });
    } catch (e) {
      this.log(`webhooks: delivery round failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
