export function Tags({ tags }: { tags: string[] }) {
  return (
    <ul class="tags">
      {tags.map((tag) => (
        <li key={tag} class="tag">
          {tag}
        </li>
      ))}
    </ul>
  );
}
