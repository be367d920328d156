import { PageHead } from "../../../components/ui";
import { SignInsView } from "../../../components/sign-ins-view";

export const metadata = { title: "Where you are signed in" };

export default function SignInsPage() {
  return (
    <>
      <PageHead
        title="Where you are signed in"
        lede="Each browser you signed in with. Sign one out (a lost laptop, a shared computer): it goes back to the sign-in page at its next step."
      />
      <SignInsView />
    </>
  );
}
