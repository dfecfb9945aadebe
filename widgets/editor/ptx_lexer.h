// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Qsci/qscilexercustom.h>

#include <QByteArray>

namespace dice {

// Syntax colouring for PTX, as Compiler Explorer shows it: directives (.entry, .reg, .loc),
// instructions with their modifiers (ld.global.nc.f32), registers (%r12, %tid.x), predicate
// guards (@%p1, @!%p2), labels ($L__BB0_2:), numbers (12, 0x1f, 0f3F800000) and comments.
class PtxLexer : public QsciLexerCustom {
public:
    enum Style { Default, Comment, Directive, Instruction, Register, Guard, Label, Number };

    explicit PtxLexer(QObject* parent = nullptr);
    const char* language() const override;
    QString description(int style) const override;
    QColor defaultColor(int style) const override;
    QFont defaultFont(int style) const override;
    void styleText(int start, int end) override;
};

// The style of every byte of `text` (whole lines of PTX), as PtxLexer colours them.
QByteArray ptxStyles(const QByteArray& text);

} // namespace dice
