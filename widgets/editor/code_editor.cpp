// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/editor/code_editor.h"

#include "widgets/editor/ptx_lexer.h"

#include <Qsci/qscilexercpp.h>
#include <Qsci/qscilexerpython.h>

#include <QFontDatabase>
#include <QRegularExpression>

namespace dice {

namespace {

// C++ with the CUDA keywords and built-ins highlighted as keywords.
class CudaLexer : public QsciLexerCPP {
public:
    using QsciLexerCPP::QsciLexerCPP;
    const char* language() const override { return "CUDA"; }
    const char* keywords(int set) const override {
        if (set == 2)
            return "__global__ __device__ __host__ __shared__ __constant__ __restrict__ "
                   "__forceinline__ __noinline__ __launch_bounds__ __syncthreads __syncwarp "
                   "__shfl_sync __shfl_down_sync __shfl_xor_sync __ldg threadIdx blockIdx "
                   "blockDim gridDim warpSize atomicAdd atomicMax atomicMin atomicCAS half "
                   "__half __nv_bfloat16 float2 float4 int4 dim3";
        return QsciLexerCPP::keywords(set);
    }
};

} // namespace

CodeEditor::CodeEditor(QWidget* parent)
    : QsciScintilla(parent) {
    setUtf8(true);
    setMarginLineNumbers(0, true);
    setMarginType(0, QsciScintilla::NumberMargin);
    setFolding(QsciScintilla::BoxedTreeFoldStyle, 2);
    setMarginType(1, QsciScintilla::SymbolMargin);
    setMarginWidth(1, 14);
    setMarginSensitivity(1, true);
    setIndentationsUseTabs(false);
    setIndentationWidth(4);
    setTabWidth(4);
    setAutoIndent(true);
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    setCaretLineVisible(true);
    setCaretLineBackgroundColor(QColor(0xf2, 0xf5, 0xf8));
    setEdgeMode(QsciScintilla::EdgeLine);
    setEdgeColumn(100);

    m_errorMarker = markerDefine(QsciScintilla::Circle, 1);
    setMarkerBackgroundColor(QColor(0xd0, 0x30, 0x30), m_errorMarker);
    setMarkerForegroundColor(QColor(0x90, 0x10, 0x10), m_errorMarker);
    m_warningMarker = markerDefine(QsciScintilla::Circle, 2);
    setMarkerBackgroundColor(QColor(0xe0, 0xa0, 0x20), m_warningMarker);
    setMarkerForegroundColor(QColor(0xa0, 0x70, 0x10), m_warningMarker);
    setMarginMarkerMask(1, (1 << m_errorMarker) | (1 << m_warningMarker));

    m_errorIndicator = indicatorDefine(QsciScintilla::SquiggleIndicator, 1);
    setIndicatorForegroundColor(QColor(0xd0, 0x30, 0x30), m_errorIndicator);
    m_warningIndicator = indicatorDefine(QsciScintilla::SquiggleIndicator, 2);
    setIndicatorForegroundColor(QColor(0xe0, 0xa0, 0x20), m_warningIndicator);

    connect(this, &QsciScintilla::linesChanged, this, &CodeEditor::updateMarginWidth);
    setLanguage(Language::Cuda);
    updateMarginWidth();
}

void CodeEditor::setLanguage(Language language) {
    m_language = language;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    QsciLexer* lexer = nullptr;
    switch (language) {
    case Language::Cuda:
        lexer = new CudaLexer(this);
        break;
    case Language::Python:
        lexer = new QsciLexerPython(this);
        break;
    case Language::Ptx:
        lexer = new PtxLexer(this);
        break;
    case Language::Plain:
        break;
    }
    if (QsciLexer* old = this->lexer())
        old->deleteLater();
    if (lexer) {
        lexer->setDefaultFont(mono);
        lexer->setFont(mono);
        setLexer(lexer);
    } else {
        setLexer(nullptr);
        setFont(mono);
    }
    setMarginsFont(mono);
    updateMarginWidth();
}

void CodeEditor::updateMarginWidth() {
    setMarginWidth(0, QString(" %1 ").arg(qMax(lines(), 100)));
}

void CodeEditor::clearDiagnostics() {
    markerDeleteAll(m_errorMarker);
    markerDeleteAll(m_warningMarker);
    const int lastLine = qMax(0, lines() - 1);
    const int lastIndex = text(lastLine).length();
    clearIndicatorRange(0, 0, lastLine, lastIndex, m_errorIndicator);
    clearIndicatorRange(0, 0, lastLine, lastIndex, m_warningIndicator);
    m_diagnostics = 0;
}

void CodeEditor::addDiagnostic(int line, int column, bool isError, const QString& message) {
    Q_UNUSED(message);
    if (line < 1 || line > lines())
        return;
    const int l = line - 1;
    markerAdd(l, isError ? m_errorMarker : m_warningMarker);
    const QString content = text(l);
    int start =
        column > 0 ? column - 1 : static_cast<int>(content.indexOf(QRegularExpression("\\S")));
    if (start < 0)
        start = 0;
    // Underline the token at the column, or the whole line when no column is known.
    int end = content.length();
    while (end > 0 && (content[end - 1] == '\n' || content[end - 1] == '\r'))
        --end;
    if (column > 0) {
        int e = start;
        while (e < end && (content[e].isLetterOrNumber() || content[e] == '_'))
            ++e;
        if (e > start)
            end = e;
    }
    if (end <= start)
        end = qMin(start + 1, static_cast<int>(content.length()));
    fillIndicatorRange(l, start, l, end, isError ? m_errorIndicator : m_warningIndicator);
    ++m_diagnostics;
}

bool CodeEditor::hasErrorIndicatorOnLine(int line) const {
    if (line < 1 || line > lines())
        return false;
    const unsigned mask = markersAtLine(line - 1);
    return (mask & (1u << m_errorMarker)) != 0;
}

void CodeEditor::goToLine(int line, int column) {
    const int l = qBound(0, line - 1, qMax(0, lines() - 1));
    setCursorPosition(l, qMax(0, column - 1));
    ensureLineVisible(l);
    setFocus();
}

} // namespace dice
