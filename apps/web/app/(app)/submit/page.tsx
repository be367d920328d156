import { SubmitForm } from "./submit-form";

export const metadata = { title: "Submit a job" };

export default function SubmitPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Submit a job</h1>
          <p className="lede">
            Choose a budget to charge and a contract. The minimum runtime is how long the job is protected after each start; after
            that it is interruptible.
          </p>
        </div>
      </div>
      <SubmitForm />
    </>
  );
}
