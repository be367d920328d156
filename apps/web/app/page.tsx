import { ClusterCards } from "../components/cluster-cards";
import { BudgetTree } from "../components/budget-tree";

export default function OverviewPage() {
  return (
    <>
      <section>
        <h1>Clusters</h1>
        <p className="lede">GPU time is shared by budgets, not priorities. Under-served budgets go first.</p>
        <ClusterCards />
      </section>
      <section>
        <h2>Budget tree</h2>
        <p className="lede">Each node&apos;s share of its parent&apos;s GPU time, per cluster.</p>
        <BudgetTree />
      </section>
    </>
  );
}
