export default function InboxPage() {
  return (
    <div className="empty-detail">
      <p>Select a conversation to read and reply.</p>
    </div>
  );
}
