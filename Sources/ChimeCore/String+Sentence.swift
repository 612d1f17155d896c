extension String {
    /// The text as the end of a sentence: with a full stop, unless it ends in one already, or in a question or an
    /// exclamation mark ("did you mean 'x'?" gets no "?." after it).
    public var endingSentence: String {
        guard let last, !".?!".contains(last) else { return self }
        return self + "."
    }
}
