/// A fake that can tell, at the end of a test, what the test set up but the code under test never
/// used: an armed failure nothing triggered, an event nobody listened to. A test that leaves such
/// things behind did not test what it meant to: `#expect(audio.leftovers() == [])`.
public protocol FakePart {
    /// One line per leftover; empty when everything set up was used.
    func leftovers() -> [String]
}
