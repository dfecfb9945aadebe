// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Qsci/qsciscintilla.h>

namespace dice {

// The workbench's source editor: QScintilla with a CUDA or Python lexer, line numbers, folding
// and a margin for diagnostics.
class CodeEditor : public QsciScintilla {
    Q_OBJECT
public:
    enum class Language { Cuda, Python, Ptx, Plain };

    explicit CodeEditor(QWidget* parent = nullptr);

    void setLanguage(Language language);
    Language language() const { return m_language; }

    // Margin markers and squiggles for compiler messages; lines are 1-based.
    void clearDiagnostics();
    void addDiagnostic(int line, int column, bool isError, const QString& message);
    int diagnosticCount() const { return m_diagnostics; }
    // Whether an error indicator covers this 1-based line (tests read it).
    bool hasErrorIndicatorOnLine(int line) const;

    void goToLine(int line, int column = 1);

private:
    void updateMarginWidth();

    Language m_language = Language::Plain;
    int m_diagnostics = 0;
    int m_errorMarker = -1;
    int m_warningMarker = -1;
    int m_errorIndicator = -1;
    int m_warningIndicator = -1;
};

} // namespace dice
