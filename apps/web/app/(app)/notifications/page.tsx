import { NotificationsView } from "./notifications-view";

export const metadata = { title: "Notifications" };

export default function NotificationsPage() {
  return <NotificationsView />;
}
