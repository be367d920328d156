import { AdminGate } from "../../../../../../components/admin/gate";
import { PageHead } from "../../../../../../components/ui";
import { SignInsView } from "../../../../../../components/sign-ins-view";
import { db } from "../../../../../../server/db";

export const dynamic = "force-dynamic";
export const metadata = { title: "A user's signed-in browsers" };

export default async function UserSignInsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <AdminGate roles={[]} what="sign another person out">
      <UserSignIns id={id} />
    </AdminGate>
  );
}

// Read only once the gate let an admin through: nobody else learns whose id this is.
async function UserSignIns({ id }: { id: string }) {
  const user = await db().user.findUnique({ where: { id }, select: { email: true } });
  if (!user)
    return (
      <div className="empty" role="alert">
        <strong>No such user</strong>
      </div>
    );
  return (
    <>
      <PageHead
        title={`Where ${user.email} is signed in`}
        lede="End a browser's session, or all of them (after a lost device or a role taken back)."
      />
      <SignInsView userId={id} />
    </>
  );
}
