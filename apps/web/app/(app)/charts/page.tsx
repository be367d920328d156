import { ChartsView } from "./charts-view";

export const metadata = { title: "Measures" };

export default function ChartsPage() {
  return <ChartsView />;
}
