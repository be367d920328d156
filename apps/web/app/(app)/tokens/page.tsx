import { TokensView } from "./tokens-view";

export const metadata = { title: "API tokens" };

export default function TokensPage() {
  return <TokensView />;
}
