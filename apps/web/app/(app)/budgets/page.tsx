import { BudgetsView } from "./budgets-view";

export const metadata = { title: "Budgets" };

export default function BudgetsPage() {
  return <BudgetsView />;
}
