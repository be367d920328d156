import { NotFoundPanel } from "../components/not-found-panel";

export const metadata = { title: "Not found" };

export default function NotFound() {
  return <NotFoundPanel />;
}
