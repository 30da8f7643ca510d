/// A count with its noun, as the messages people read write it: "1 record", "2 records". Every
/// noun these messages count takes an `s` in the plural.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
