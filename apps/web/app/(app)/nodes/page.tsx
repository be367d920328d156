import { NodesView } from "./nodes-view";

export const metadata = { title: "Nodes" };

export default function NodesPage() {
  return <NodesView />;
}
